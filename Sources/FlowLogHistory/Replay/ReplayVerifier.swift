public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem

/// A place where today's reducers disagree with what was recorded.
public struct Disagreement: Sendable {
    public let stream: String
    public let position: Int
    public let version: Int
    public let eventType: String
    /// What today's reducers make of the stream after that event.
    public let replayed: LogDecider.State
    /// The recorded state, where it is known in full (an expected-state file); `nil` for a fingerprint.
    public let recorded: JSONValue?
    public let reason: String
}

/// `flowlog replay --verify`: replays with today's reducers and compares each stream with what was
/// recorded, naming for every stream that disagrees the first position where it does.
public enum ReplayVerifier {
    public struct Report: Sendable {
        public var streams = 0
        public var events = 0
        /// How many recorded states (fingerprints or expected states) were compared.
        public var comparisons = 0
        /// Forgotten events (`flowlog forget`): in the log, of no stream, with nothing to compare.
        public var forgotten = 0
        public var disagreements: [Disagreement] = []
    }

    /// Against the fingerprints the log recorded when each event was appended. A stream stops being
    /// replayed, compared and counted at its first disagreement; the disagreements are reported in
    /// the order the log lists its streams.
    ///
    /// The walk is `StreamSummaries`'s: in position order, each stream's state kept until it ends,
    /// while the log has at most `StreamSummaries.positionWalkLimit` streams; stream by stream,
    /// one state at a time, beyond.
    ///
    /// `evolve` is today's reducer; a test hands in a broken one to see the log's fingerprints catch
    /// it, and lowers `positionWalkLimit` to compare the walks.
    public static func verifyFingerprints(
        of log: any EventLog & FingerprintedLog, progress: Progress? = nil,
        positionWalkLimit: Int = StreamSummaries.positionWalkLimit,
        evolve: (inout LogDecider.State, LogDecider.Event) -> Void = LogDecider.evolve
    ) throws -> Report {
        // A disagreement reports the whole state, replayed again from the stream's start: the walk
        // holds a few of each state's kept rows (`Comparison.compare`).
        func replayedWhole(_ record: RecordedEvent) -> LogDecider.State? {
            var state = LogDecider.initialState
            do {
                try log.forEachEvent(inStream: record.stream, throughPosition: record.position) { event in
                    evolve(&state, event.event)
                    return true
                }
            } catch { return nil }
            return state
        }
        var comparison = Comparison(lastBefore: try log.lastPosition(), progress: progress)
        if try StreamSummaries.hasMoreStreams(than: positionWalkLimit, in: log) {
            var current: String?
            var state = LogDecider.initialState
            var settled = false
            try log.forEachEventWithFingerprintByStream { record, recorded in
                if record.stream != current {
                    (current, state, settled) = (record.stream, LogDecider.initialState, false)
                    comparison.report.streams += 1
                }
                comparison.compare(record, recorded, state: &state, settled: &settled, evolve: evolve, replayedWhole: replayedWhole)
                return true
            }
            return comparison.finish()
        }
        let streams = try log.streams()
        comparison.report.streams = streams.count
        var slots = StreamSlots()
        var states: [LogDecider.State] = []
        var settled: [Bool] = []
        try log.forEachEventWithFingerprint(from: 1, through: nil) { record, recorded in
            let (slot, isNew) = slots.slot(of: record.stream)
            if isNew {
                states.append(LogDecider.initialState)
                settled.append(false)
            }
            comparison.compare(record, recorded, state: &states[slot], settled: &settled[slot], evolve: evolve, replayedWhole: replayedWhole)
            return true
        }
        var rank: [String: Int] = [:]
        let disagreeing = Set(comparison.report.disagreements.map(\.stream))
        for (index, stream) in streams.enumerated() where disagreeing.contains(stream.stream) { rank[stream.stream] = index }
        comparison.report.disagreements.sort { left, right in
            let (a, b) = (rank[left.stream] ?? Int.max, rank[right.stream] ?? Int.max)
            return a != b ? a < b : left.stream.utf8.lexicographicallyPrecedes(right.stream.utf8)
        }
        return comparison.finish()
    }

    /// The replay of one event against its recorded fingerprint, for either walk.
    private struct Comparison: ~Copyable {
        var report = Report()
        var scratch = BinaryWriter(capacity: 512)
        /// The walk leaves forgotten records out; positions are contiguous, so the ones up to the
        /// last position as it stood before the walk that it did not meet are the forgotten ones.
        let lastBefore: Int
        var metBefore = 0
        var count = 0
        let progress: Progress?
        init(lastBefore: Int, progress: Progress?) { (self.lastBefore, self.progress) = (lastBefore, progress) }

        mutating func compare(
            _ record: RecordedEvent, _ recorded: UInt64?, state: inout LogDecider.State, settled: inout Bool,
            evolve: (inout LogDecider.State, LogDecider.Event) -> Void,
            replayedWhole: (RecordedEvent) -> LogDecider.State?
        ) {
            count += 1
            if record.position <= lastBefore { metBefore += 1 }
            if count & 0xFFF == 0 { progress?.advance(to: count) }
            guard !settled else { return }
            report.events += 1
            evolve(&state, record.event)
            // A state holds a few of its kept rows: a fingerprint needs their number and the latest.
            defer { StreamSummaries.holdFew(&state) }
            guard let recorded else { return }
            report.comparisons += 1
            guard LogDecider.fingerprint(state, scratch: &scratch) != recorded else { return }
            settled = true
            // The whole state, when the walk slimmed it (the slim one if the stream cannot be read).
            if !LogDecider.holdsAllKeptRows(state), let whole = replayedWhole(record) { state = whole }
            // Told apart from a change of meaning: a defect of earlier FlowLogs that `upgrade` repairs.
            let earlierDefect = LogDecider.misrecordedFingerprint(of: state, scratch: &scratch) == recorded
            report.disagreements.append(
                Disagreement(
                    stream: record.stream, position: record.position, version: record.version, eventType: record.event.typeName,
                    replayed: state, recorded: nil,
                    reason: earlierDefect
                        ? "the state recorded when it was appended has its last order in USD, not in its cart's currency: an earlier FlowLog read orders back so, and `\(ProgramName.current) upgrade` repairs what it recorded (the events are right)"
                        : "the state after this event differs from the one recorded when it was appended"))
            // Nothing more of this stream is replayed: its state is reported, not kept.
            state = LogDecider.initialState
        }

        mutating func finish() -> Report {
            progress?.finish()
            report.forgotten = lastBefore - metBefore
            return report
        }
    }

    /// Against an expected-state file: lines of `flowlog state --format json` output (one per stream for
    /// final states, or one per event, as `flowlog replay --trace` writes, to find the exact position).
    public static func verify(source: any ReplaySource, expected: [String: [Int: JSONValue]]) throws -> Report {
        var report = Report()
        var settled: Set<String> = []
        var seen: Set<String> = []
        let states = try Replayer(source: source).run(stream: nil, keepBefore: false) { step in
            let stream = step.record.stream
            report.events += 1
            seen.insert(stream)
            guard !settled.contains(stream), let recorded = expected[stream]?[step.record.version] else { return true }
            report.comparisons += 1
            let replayed = StateDiff.matching(StateDiff.tree(step.after), olderShape: recorded)
            if replayed != recorded {
                settled.insert(stream)
                let changes = StateDiff.changes(from: recorded, to: replayed)
                report.disagreements.append(
                    Disagreement(
                        stream: stream, position: step.record.position, version: step.record.version, eventType: step.record.event.typeName,
                        replayed: step.after, recorded: recorded,
                        reason: "\(changes.count) difference\(changes.count == 1 ? "" : "s") from the expected state: "
                            + changes.prefix(3).map(StateDiff.render).joined(separator: "; ")))
            }
            return true
        }
        report.streams = seen.count
        for (stream, versions) in expected where !seen.contains(stream) || versions.keys.contains(where: { $0 > (states[stream]?.version ?? 0) }) {
            report.disagreements.append(
                Disagreement(
                    stream: stream, position: 0, version: states[stream]?.version ?? 0, eventType: "",
                    replayed: states[stream]?.state ?? LogDecider.initialState, recorded: nil,
                    reason:
                        "the expected states go up to version \(versions.keys.max() ?? 0), but the log's stream ends at version \(states[stream]?.version ?? 0)"
                ))
        }
        return report
    }

    /// Reads an expected-state file into stream → version → state tree.
    public static func expectations(fromLines lines: [String], source: String = "the expected states") throws -> [String: [Int: JSONValue]] {
        var expected: [String: [Int: JSONValue]] = [:]
        for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
            guard case .object(let members)? = try? JSONParser.parse(line),
                case .string(let stream)? = JSONValue.object(members)["stream"],
                case .integer(let version)? = JSONValue.object(members)["version"]
            else {
                throw FlowLogError.invalidInput(
                    "Line \(index + 1) of \(source) is not a state as `\(ProgramName.current) state --format json` prints it (with \"stream\" and \"version\"); `\(ProgramName.current) replay --trace` writes a file of them."
                )
            }
            expected[stream, default: [:]][version] = .object(members.filter { $0.0 != "stream" && $0.0 != "version" })
        }
        return expected
    }

    /// Reads the expected-state file at `path`.
    public static func expectations(fromFile path: String) throws -> [String: [Int: JSONValue]] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw FlowLogError.unreadableInput(path: path, errorNumber: errno) }
        defer { close(descriptor) }
        var reader = LineReader(fileDescriptor: descriptor)
        var lines: [String] = []
        while try reader.readBatch({ batch in
            for line in batch {
                guard case .text(let bytes) = line else {
                    throw FlowLogError.invalidInput(
                        "Line \(lines.count + 1) of \(path) is longer than \(LineReader.maximumLineLength) bytes; it is not a state.")
                }
                lines.append(String(decoding: bytes, as: UTF8.self))
            }
        }) {}
        return try expectations(fromLines: lines, source: path)
    }
}
