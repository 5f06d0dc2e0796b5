public import FlowLogBasics
public import FlowLogStore

/// Every stream's final state (`replay --summary`), in stream id order (byte order, as the log
/// lists streams), by one of two walks chosen by the number of streams.
///
/// A walk in position order reads the records where they lie, one after another; a walk stream by
/// stream reads them through the stream index in scattered order, one random read per event, several
/// times slower on a log of interleaved sessions. But the walk in position order keeps every
/// stream's state until it ends, so its memory grows with the number of streams (hundreds of MB for
/// a million sessions). Up to `positionWalkLimit` streams the log is walked in position order; beyond,
/// stream by stream, holding one state at a time, however many sessions there are.
public enum StreamSummaries {
    public struct Summary: Sendable {
        public let stream: String
        public let state: LogDecider.State
        public let version: Int

        init(stream: String, _ fold: StreamFold) { (self.stream, state, version) = (stream, fold.state.value, fold.version) }
    }

    /// The most streams whose states the walk in position order holds at once. A log of long
    /// interleaved sessions has few (10,000 at 10M events in the bench); a log of app sessions has
    /// millions, each of a few events, and their scattered reads cost little.
    public static let positionWalkLimit = 16_384

    /// The most the states the walk in position order holds may come to, by the domain's estimate
    /// (`LogDomain.estimatedCost`), checked at each sixteenth of the log: a walk past it stops and
    /// goes stream by stream. Few streams may still hold much: the bench's 10M-event log of 10,000
    /// long sessions (estimated 75 MB at the end) held 65 MB in position order. Projected to the
    /// end from the part walked, the estimate sent the walk of the first 3M events of that log
    /// (21 MB in position order) stream by stream too, at twice the time: a state's fixed part
    /// does not grow with its events.
    public static let positionWalkBudget = 32 << 20

    /// What a caller shows of each state's kept rows (`LogDecider.keptRows(of:)`).
    public enum KeptRowsShown: Sendable {
        /// The rows themselves: a state's JSON face lists a session's orders.
        case rows
        /// Only their number (a line of text says how many orders): a state then holds its latest
        /// `rowsHeldForCount` rows at most, and counts the rest (`keepOnlyLatestKeptRow`). A log of
        /// 10,000 long sessions (70 orders each) held 65 MB of rows in position order, past the
        /// budget, and so went stream by stream at three times the time; and a single stream's rows
        /// grew with its length either way.
        case count
    }

    /// The most kept rows a state holds in a walk that shows their number only: each slim makes a
    /// new array of one row, so a few are let pile up between slims.
    package static let rowsHeldForCount = 8

    /// Whether `log` has more than `limit` streams: a walk of the stream table that stops there.
    public static func hasMoreStreams(than limit: Int, in log: any EventLog) throws -> Bool {
        var count = 0
        try log.forEachStream(from: nil) { _, _ in
            count += 1
            return count <= limit
        }
        return count > limit
    }

    /// Calls `body` with each stream's final state in stream id order (`limit` and `budget`: the
    /// walk's choice, which tests lower to compare the walks), holding of each state's kept rows
    /// what `shown` needs. Beyond the limit the walk is the log's own walk by
    /// stream (`FingerprintedLog.forEachEventWithFingerprintByStream`: pages of events in stream
    /// order, where a read of each stream was a round trip each on PostgreSQL).
    public static func forEachFinalState(
        of log: any EventLog & FingerprintedLog, progress: Progress? = nil, keptRows shown: KeptRowsShown = .rows,
        positionWalkLimit limit: Int = positionWalkLimit, positionWalkBudget budget: Int = positionWalkBudget,
        _ body: (Summary) throws -> Void
    ) throws {
        if try !hasMoreStreams(than: limit, in: log),
            let summaries = try finalStates(of: log, progress: progress, shown: shown, budget: budget, events: log.lastPosition())
        {
            for summary in summaries { try body(summary) }
            return
        }
        var stream: String?
        var fold = StreamFold.initial
        var events = 0
        try log.forEachEventWithFingerprintByStream { record, _ in
            if record.stream != stream {
                if let stream { try body(Summary(stream: stream, fold)) }
                (stream, fold) = (record.stream, StreamFold.initial)
            }
            fold.fold(record)
            if shown == .count { holdFew(&fold) }
            events += 1
            if events & 0xFFF == 0 { progress?.advance(to: events) }
            return true
        }
        if let stream { try body(Summary(stream: stream, fold)) }
        progress?.finish()
    }

    /// The final states from one walk in position order, held at once (any replay source).
    public static func finalStates(of source: any ReplaySource, progress: Progress? = nil) throws -> [Summary] {
        try finalStates(of: source, progress: progress, shown: .rows, budget: .max, events: 0) ?? []
    }

    /// As `finalStates(of:progress:)`; `nil` once the states' estimated cost, checked at each
    /// sixteenth of the `events`, passes `budget` (the walk stops there).
    static func finalStates(of source: any ReplaySource, progress: Progress?, shown: KeptRowsShown, budget: Int, events: Int) throws -> [Summary]? {
        var slots = StreamSlots()
        var folds: [StreamFold] = []
        var count = 0
        let checkEvery = budget == .max ? Int.max : max(events / 16, 1)
        var overBudget = false
        try source.forEachEvent(stream: nil, from: 1, to: nil) { record in
            let (slot, isNew) = slots.slot(of: record.stream)
            if isNew { folds.append(StreamFold.initial) }
            folds[slot].fold(record)
            if shown == .count { holdFew(&folds[slot]) }
            count += 1
            if count & 0xFFF == 0 { progress?.advance(to: record.position) }
            if count % checkEvery == 0 {
                let cost = folds.reduce(0) { $0 + LogDecider.estimatedCost(of: $1.state.value) }
                overBudget = cost > budget
                return !overBudget
            }
            return true
        }
        if overBudget { return nil }
        progress?.finish()
        let streams = slots.streams
        return streams.indices.sorted { streams[$0].utf8.lexicographicallyPrecedes(streams[$1].utf8) }
            .map { Summary(stream: streams[$0], folds[$0]) }
    }

    /// Slims a state past `rowsHeldForCount` kept rows to its latest (their number stays).
    @inline(__always) static func holdFew(_ fold: inout StreamFold) { holdFew(&fold.state.value) }

    /// `holdFew` of a domain state (`replay --verify`'s walks, whose fingerprints need the rows'
    /// number and the latest).
    @inline(__always) static func holdFew(_ state: inout LogDecider.State) {
        if LogDecider.keptRows(of: state).count > rowsHeldForCount { LogDecider.keepOnlyLatestKeptRow(&state) }
    }
}
