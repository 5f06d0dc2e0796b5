import FlowLogBasics
public import FlowLogStore
import FlowLogSystem

/// An NDJSON export read directly as a replay source (`replay --file`, `bisect --file`): no import
/// needed. Opening it reads the whole file once and checks that it is a log's history
/// (`HistoryOrder`): an event out of place stops it there, naming the line, before anything is
/// replayed.
public struct NDJSONFileSource: ReplaySource {
    public let path: String
    /// The first and last positions in the file (`nil` for a file without events).
    public let positions: ClosedRange<Int>?
    /// Every stream in the file, with its last version.
    public let streams: [String: Int]

    public init(path: String, allowingGaps: Bool = false) throws {
        self.path = path
        var order = HistoryOrder(allowingGaps: allowingGaps)
        try Self.read(path) { record, line in
            if let problem = order.admit(record, line: line) {
                throw FlowLogError.invalidInput("Line \(line) of \(path) \(problem)")
            }
            return true
        }
        positions = order.firstPosition.flatMap { first in order.lastPosition.map { first...$0 } }
        streams = order.streams
    }

    public func forEachEvent(stream: String?, from: Int, to: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try Self.read(path) { record, _ in
            if let stream, record.stream != stream { return true }
            if record.position < from { return true }
            if let to, record.position > to { return false }
            return try body(record)
        }
    }

    public func state(ofStream stream: String, before position: Int) throws -> LogDecider.State {
        var fold = StreamFold.initial
        try forEachEvent(stream: stream, from: 1, to: position - 1) { record in
            fold.fold(record)
            return true
        }
        return fold.state.value
    }

    /// Every event of the file with its line number, until `body` returns `false`; blank lines are skipped.
    private static func read(_ path: String, _ body: (RecordedEvent, Int) throws -> Bool) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw FlowLogError.unreadableInput(path: path, errorNumber: errno) }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { throw FlowLogError.unreadableInput(path: path, errorNumber: EISDIR) }
        var reader = LineReader(fileDescriptor: descriptor)
        var lineNumber = 0
        var stop = false
        while try !stop
            && reader.readBatch({ lines in
                for line in lines where !stop {
                    lineNumber += 1
                    guard case .text(let bytes) = line else {
                        throw FlowLogError.invalidInput(
                            "Line \(lineNumber) of \(path) is longer than \(LineReader.maximumLineLength) bytes; it is not an exported event.")
                    }
                    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                    let record: RecordedEvent
                    do {
                        record = try RecordedEventJSON.decode(bytes)
                    } catch let problem as RecordedEventJSON.Problem {
                        throw FlowLogError.invalidInput(
                            "Line \(lineNumber) of \(path) is not an exported event: \(problem.message). Give a file that `\(ProgramName.current) export` wrote."
                        )
                    }
                    stop = try !body(record, lineNumber)
                }
            })
        {}
    }
}
