import Deciding
import FlowLogHistory
import FlowLogStore

/// What a reading command may name: the positions and streams a log (or an NDJSON file) holds, and
/// the one rule for the reading commands (`state`, `view`, `replay`, `log`, `bisect`) when a
/// command names what is not there: a position outside the range is a usage error (64) naming the
/// range; a stream that is not there is exit 66 with how many streams there are and the command
/// that lists them.
struct ReadingScope {
    /// "the log PATH", or the file's path.
    let name: String
    /// The first and last positions held; `nil` when nothing is.
    let positions: ClosedRange<Int>?
    private let holds: (String) throws -> Bool
    private let streamCount: () throws -> Int
    /// The command that lists the streams.
    private let listing: String

    /// A log: positions 1 through its last, and its streams (`flowlog streams` lists them).
    init(log: any EventLog, options: LogOptions) throws {
        let last = try log.lastPosition()
        name = "the log \(log.location)"
        positions = last > 0 ? 1...last : nil
        holds = { try log.version(of: $0) > 0 }
        // As `flowlog streams` counts them: the log's own streams are not among them.
        streamCount = {
            var count = 0
            try log.forEachStream(from: nil) { stream, _ in
                if !SystemStreams.isReserved(stream) { count += 1 }
                return true
            }
            return count
        }
        listing = "\(Program.name) streams" + (options.db.map { " --db \($0)" } ?? "")
    }

    /// An NDJSON file read as a source.
    init(file: NDJSONFileSource) {
        name = file.path
        positions = file.positions
        holds = { file.streams[$0] != nil }
        streamCount = { file.streams.count }
        listing = "\(Program.name) replay --file \(file.path) --summary"
    }

    /// Refuses `value` of `option` unless it is a position held (or 0, where `allowingZero`: the
    /// state before the first event; or the next position to come, where `allowingNext`: `--follow`).
    func check(_ value: Int, option: String, allowingZero: Bool = false, allowingNext: Bool = false) throws {
        if let positions, positions.contains(value) { return }
        if allowingZero, value == 0 { return }
        let next = (positions?.upperBound ?? 0) + 1
        if allowingNext, value == next { return }
        let held = positions.map { "which holds positions \($0.lowerBound) through \($0.upperBound)" } ?? "which holds no events yet"
        var choices: [String] = []
        if positions != nil { choices.append("a position in that range") }
        if allowingZero { choices.append("0 for the state before the first event") }
        if allowingNext { choices.append("\(next) for the next event to come") }
        let advice = choices.isEmpty ? "" : "; choose " + choices.joined(separator: ", or ")
        throw CLIFailure("\(option) \(value) is outside \(name), \(held)\(advice).", .usage)
    }

    /// Refuses a stream that is not there.
    func check(stream: String) throws {
        guard try !holds(stream) else { return }
        let count = try streamCount()
        let held = count == 0 ? "it holds no streams yet" : "it holds \(count) stream\(count == 1 ? "" : "s"); `\(listing)` lists them"
        throw CLIFailure("There is no stream \(stream) in \(name): \(held). Check the name (--stream).", .noInput)
    }
}
