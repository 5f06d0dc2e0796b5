public import FlowLogStore

/// Checks that events come as a log holds them: positions increasing by one, and each stream's
/// versions running 1, 2, 3, … A file that breaks this would replay into states that never were:
/// a repeated event is folded twice, a missing one not at all. Gaps (missing positions or versions,
/// a stream that starts above version 1) are allowed when the caller says it knows of them (an
/// export of some streams or types skips positions by design); a repeated event or one that goes
/// back never is, since no replay of it means anything.
///
/// The one place these rules live: `replay --file` and `bisect --file` (gaps when told), and the
/// server's scratch sessions (gaps in positions, an export of some streams, but not in a stream's
/// versions, which a session numbers by).
public struct HistoryOrder: Sendable {
    public let allowingPositionGaps: Bool
    public let allowingVersionGaps: Bool
    /// What the reader can do about a gap, appended to its sentence.
    private let gapHint: String
    /// The last position and the line that held it.
    private var last: (position: Int, line: Int)?
    /// Each stream's last version and the line that held it.
    private var versions: [String: (version: Int, line: Int)] = [:]

    /// The command line's rules: gaps of both kinds when `--allow-gaps` says they are meant.
    public init(allowingGaps: Bool) {
        self.init(
            allowingPositionGaps: allowingGaps, allowingVersionGaps: allowingGaps,
            gapHint: """
                If the file holds only some streams, types or times on purpose (an export with --stream, --type or --since), give \
                --allow-gaps; otherwise export the log again.
                """)
    }

    public init(allowingPositionGaps: Bool, allowingVersionGaps: Bool, gapHint: String) {
        (self.allowingPositionGaps, self.allowingVersionGaps, self.gapHint) = (allowingPositionGaps, allowingVersionGaps, gapHint)
    }

    /// The positions seen so far, first through last (`nil` before the first event).
    public private(set) var firstPosition: Int?
    public var lastPosition: Int? { last?.position }
    /// Every stream seen, with its last version.
    public var streams: [String: Int] { versions.mapValues(\.version) }

    /// Takes the event on `line`; returns what is wrong with its place, as the rest of a sentence
    /// that starts with "Line N of FILE", or `nil` when it follows on from the events before it.
    public mutating func admit(_ record: RecordedEvent, line: Int) -> String? {
        if let last,
            let problem = follows(
                record.position, after: (last.position, last.line), "position", of: nil,
                gapsAllowed: allowingPositionGaps,
                repeated: "each event appears once in a log's history.",
                backwards: "positions must increase. Sort the file by position, as an export writes it.")
        {
            return problem
        }
        if let previous = versions[record.stream] {
            if let problem = follows(
                record.version, after: (previous.version, previous.line), "version", of: record.stream,
                gapsAllowed: allowingVersionGaps,
                repeated: "each version of a stream appears once.", backwards: "a stream's versions must increase.")
            {
                return problem
            }
        } else if record.version > 1, !allowingVersionGaps {
            return
                "is version \(record.version) of stream \(record.stream), the stream's first event in the file: \(Self.missing("version", 1, record.version - 1, of: record.stream)). \(gapHint)"
        }
        if firstPosition == nil { firstPosition = record.position }
        last = (record.position, line)
        versions[record.stream] = (record.version, line)
        return nil
    }

    /// The rules positions and a stream's versions both follow: no number twice, none going back,
    /// none skipped (unless gaps are allowed).
    private func follows(
        _ value: Int, after previous: (value: Int, line: Int), _ noun: String, of stream: String?, gapsAllowed: Bool,
        repeated: String, backwards: String
    ) -> String? {
        let owner = stream.map { " of stream \($0)" } ?? ""
        if value == previous.value {
            return "is \(noun) \(value)\(owner) again (line \(previous.line) has it too): \(repeated) Remove the repeated line."
        }
        if value < previous.value {
            return "is \(noun) \(value)\(owner), which goes back from \(noun) \(previous.value) on line \(previous.line): \(backwards)"
        }
        if value > previous.value + 1, !gapsAllowed {
            return
                "is \(noun) \(value)\(owner), after \(noun) \(previous.value) on line \(previous.line): \(Self.missing(noun, previous.value + 1, value - 1, of: stream)). \(gapHint)"
        }
        return nil
    }

    /// "position 4 is missing", "versions 1 through 2 of stream s are missing".
    private static func missing(_ noun: String, _ first: Int, _ last: Int, of stream: String? = nil) -> String {
        let owner = stream.map { " of stream \($0)" } ?? ""
        return first == last ? "\(noun) \(first)\(owner) is missing" : "\(noun)s \(first) through \(last)\(owner) are missing"
    }
}
