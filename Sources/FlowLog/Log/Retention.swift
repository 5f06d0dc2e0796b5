import FlowDomain
/// Retention (`flowlog retain`, and the daily run of a retention set on the log): which sessions
/// are old, and forgetting them in batches.
///
/// A session (stream) is old when its last event's timestamp is strictly before the cutoff, now
/// minus the period: its last event, not its first, because a session still in use is not one to
/// forget, however long ago it began. "Now" is the caller's clock (the composition root's), so
/// that this stays testable and deterministic.
public enum Retention {
    /// Streams forgotten per transaction: enough that 10,000 sessions take 20 commits, few enough
    /// that one transaction stays small (a batch of 500 sessions of 100 events rewrites 50,000
    /// records) and a kill loses at most one batch's work, never its atomicity.
    public static let defaultBatchSize = 500

    /// A session `candidates` found old: its version and last event as they were when listed.
    public struct Candidate: Equatable, Sendable {
        public let stream: String
        public let version: Int
        public let lastPosition: Int
        public let lastTimestamp: Timestamp
    }

    /// What a retention run forgot.
    public struct Outcome: Equatable, Sendable {
        /// Sessions and events forgotten.
        public var sessions = 0
        public var events = 0
        /// Listed as old, but young again (or gone) by the time their batch came: left as they are.
        public var skipped = 0
        /// Transactions committed.
        public var batches = 0

        public init() {}
    }

    /// Every stream whose last event is before `cutoff`, in stream id order (the log's order, so
    /// that a run and its dry run list alike, and a resumed run continues in the same order).
    ///
    /// It reads the stream list and each stream's last event through the stream index, as `flowlog
    /// streams` does for its LAST EVENT column: one lookup a stream, never a walk of every record.
    /// The list is not one snapshot with the forgetting; `forget(streams:lastEventBefore:)` checks
    /// each session's age again in the transaction that forgets it.
    public static func candidates(in log: any EventLog, olderThan cutoff: Timestamp) throws -> [Candidate] {
        var old: [Candidate] = []
        // The log's own streams (the erasure audit trail) are nobody's session: never forgotten.
        for (stream, version) in try log.streams() where !SystemStreams.isReserved(stream) {
            // A stream forgotten (or a version moved) since the list was read is passed over: it
            // is not this run's to forget, or the next run lists it again.
            guard let last = try log.event(inStream: stream, version: version) else { continue }
            if last.timestamp < cutoff {
                old.append(Candidate(stream: stream, version: version, lastPosition: last.position, lastTimestamp: last.timestamp))
            }
        }
        return old
    }

    /// Forgets `candidates` `batchSize` at a time, each batch one transaction: a run killed between
    /// two batches leaves every batch whole, and the next run lists only the sessions still there.
    /// `afterBatch` hears each committed batch (progress; a stop request ends the run there by
    /// returning false).
    ///
    /// Each forgotten session gets its audit event (`ErasureAudit`: the reason names the period and
    /// the cutoff, never a session), stamped by `clock`. `beforeBatch` hears each batch's sessions
    /// before they are forgotten (the trackers' files lose their lines first, as in `forget`, so a
    /// run killed in between leaves the sessions in the log for the next run to finish).
    public static func forget(_ candidates: [Candidate], olderThan cutoff: Timestamp, period: String, using forgetting: any StreamForgetting,
                              clock: any WallClock, batchSize: Int = defaultBatchSize, beforeBatch: ([String]) throws -> Void = { _ in },
                              afterBatch: (Outcome) -> Bool = { _ in true }) throws -> Outcome {
        var outcome = Outcome()
        var start = 0
        let audit = ErasureAudit.events(reason: "retention: last event older than \(period) (before \(cutoff.rfc3339))", key: nil, clock: clock)
        while start < candidates.count {
            let batch = candidates[start..<min(start + max(batchSize, 1), candidates.count)].map(\.stream)
            try beforeBatch(batch)
            let forgotten = try forgetting.forget(streams: batch, lastEventBefore: cutoff, audit: audit)
            outcome.sessions += forgotten.count
            outcome.events += forgotten.reduce(0) { $0 + $1.events }
            outcome.skipped += batch.count - forgotten.count
            outcome.batches += 1
            start += batch.count
            if !afterBatch(outcome) { break }
        }
        return outcome
    }
}
