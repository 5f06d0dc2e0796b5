import Deciding
public import FlowLogBasics

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
    public typealias Candidate = StreamListing

    /// What a retention run forgot.
    public struct Outcome: Equatable, Sendable {
        /// Sessions and events forgotten.
        public var sessions = 0
        public var events = 0
        /// Listed as old, but young again (or gone) by the time their batch came: left as they are.
        public var skipped = 0
        /// Transactions committed.
        public var batches = 0
        /// Whether a stop request ended the run before the last old session.
        public var stopped = false

        public init() {}
    }

    /// Calls `body` with every stream whose last event is before `cutoff`, in stream id order
    /// (the log's order, so that a run and its dry run list alike, and a resumed run continues in
    /// the same order), until it returns false.
    ///
    /// It walks the streams' listings, as `flowlog streams` does for its LAST EVENT column: never a
    /// walk of every record, and one page of streams in memory at a time. The walk is not one
    /// snapshot with the forgetting; `forget(in:olderThan:…)` checks each session's age again in
    /// the transaction that forgets it.
    public static func forEachCandidate(in log: any EventLog, olderThan cutoff: Timestamp, _ body: (Candidate) throws -> Bool) throws {
        try log.forEachStreamListing(from: nil) { listing in
            // The log's own streams (the erasure audit trail) are nobody's session: never forgotten.
            guard !SystemStreams.isReserved(listing.stream), listing.lastTimestamp < cutoff else { return true }
            return try body(listing)
        }
    }

    /// The candidates, held at once: for tests and small logs.
    public static func candidates(in log: any EventLog, olderThan cutoff: Timestamp) throws -> [Candidate] {
        var old: [Candidate] = []
        try forEachCandidate(in: log, olderThan: cutoff) {
            old.append($0)
            return true
        }
        return old
    }

    /// How many sessions a run would forget now (one walk, nothing held): what the confirmation
    /// and the progress line name.
    public static func candidateCount(in log: any EventLog, olderThan cutoff: Timestamp) throws -> Int {
        var count = 0
        try forEachCandidate(in: log, olderThan: cutoff) { _ in
            count += 1
            return true
        }
        return count
    }

    /// Forgets every candidate of `log`, `batchSize` at a time as the walk meets them, each batch
    /// one transaction: a run killed between two batches leaves every batch whole, and the next
    /// run lists only the sessions still there. Memory holds one batch, however many sessions
    /// are old. `afterBatch` hears each committed batch (progress; a stop request ends the run
    /// there by returning false).
    ///
    /// Each forgotten session gets its audit event (`ErasureAudit`: the reason names the period and
    /// the cutoff, never a session), stamped by `clock`. `beforeBatch` hears each batch's sessions
    /// before they are forgotten (the trackers' files lose their lines first, as in `forget`, so a
    /// run killed in between leaves the sessions in the log for the next run to finish).
    public static func forget(
        in log: any EventLog, olderThan cutoff: Timestamp, period: String, using forgetting: any StreamForgetting,
        clock: any WallClock, batchSize: Int = defaultBatchSize, beforeBatch: ([String]) throws -> Void = { _ in },
        afterBatch: (Outcome) -> Bool = { _ in true }
    ) throws -> Outcome {
        var outcome = Outcome()
        let audit = ErasureAudit.events(reason: "retention: last event older than \(period) (before \(cutoff.rfc3339))", key: nil, clock: clock)
        var batch: [String] = []
        var going = true
        func forgetBatch() throws {
            try beforeBatch(batch)
            let forgotten = try forgetting.forget(streams: batch, lastEventBefore: cutoff, audit: audit)
            outcome.sessions += forgotten.count
            outcome.events += forgotten.reduce(0) { $0 + $1.events }
            outcome.skipped += batch.count - forgotten.count
            outcome.batches += 1
            batch.removeAll(keepingCapacity: true)
            going = afterBatch(outcome)
        }
        try forEachCandidate(in: log, olderThan: cutoff) { candidate in
            guard going else {
                outcome.stopped = true
                return false
            }
            batch.append(candidate.stream)
            if batch.count >= max(batchSize, 1) { try forgetBatch() }
            return true
        }
        if going, !batch.isEmpty { try forgetBatch() }
        return outcome
    }
}
