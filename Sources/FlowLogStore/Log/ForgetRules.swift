public import FlowLogBasics

/// One forget transaction of a log, as the forget rules see it: the few storage steps that differ
/// between backends. Each backend implements it over its own write transaction; `ForgetRules` is
/// the one place that decides what a forget does (the refusals, `retain`'s cutoff, what a
/// `ForgottenStream` says, the audit events), so every backend forgets alike.
public protocol ForgetTransaction {
    /// The log's path or URL, for refusals.
    var location: String { get }
    /// The log's schema, as this transaction sees it: below log schema 3 records cannot be
    /// forgotten without breaking the hash chain.
    mutating func logSchema() throws -> Int
    /// The time of the stream's last event, as this transaction sees it; `nil` for a stream that
    /// has no events (never had, or was forgotten).
    mutating func lastEventTime(of stream: String) throws -> Timestamp?
    /// Replaces each of the stream's records by its forgotten form (its envelope, a check and its
    /// chain hash, without stream, ids or payload: `RecordCodec.forgottenForm`), and answers their
    /// positions, ascending, and the correlation ids they carried, each once, in the order first
    /// met. Empty positions for a stream that has no events; nothing is changed then.
    mutating func forgetRecords(of stream: String) throws -> (positions: [Int], correlationIds: [String])
    /// Removes what was derived from the stream's events: its version, command receipts,
    /// snapshots, cached states, fingerprints, and in the storage read model its state and flags;
    /// its kept rows stay anonymised (`KeptRow.anonymized`, without the stream), so totals still
    /// add up.
    mutating func forgetDerived(stream: String, positions: [Int]) throws
    /// Appends the erasures' audit events (`ErasureAudit.request`) in this transaction, by the
    /// append rules: an erasure never commits without its audit event.
    mutating func appendAudits(_ request: AppendRequest) throws
}

/// The forget rules of the log contract, written once for every backend (docs/spec.md §7).
public enum ForgetRules {
    /// Forgets `streams` through `transaction`, all of them or none (the caller commits only
    /// when this returns): see `StreamForgetting.forget(streams:lastEventBefore:audit:)`.
    ///
    /// Throws `ForgetRefusal.upgradeRequired` for a log below the salted layout, and
    /// `ForgetRefusal.unknownStream` for a stream without events, unless `cutoff` is given: then a
    /// stream that is gone, or whose last event is not before the cutoff, is left out.
    public static func forget<Transaction: ForgetTransaction>(
        streams: [String], lastEventBefore cutoff: Timestamp?, audit: (ForgottenStream) -> NewEvent?, in transaction: inout Transaction
    ) throws -> [ForgottenStream] {
        let logSchema = try transaction.logSchema()
        guard RecordLayout(logSchema: logSchema).isSalted else {
            throw ForgetRefusal.upgradeRequired(location: transaction.location, logSchema: logSchema)
        }
        var forgotten: [ForgottenStream] = []
        for stream in streams {
            if let cutoff {
                guard let last = try transaction.lastEventTime(of: stream), last < cutoff else { continue }
            }
            let (positions, correlationIds) = try transaction.forgetRecords(of: stream)
            guard let first = positions.first, let last = positions.last else {
                throw ForgetRefusal.unknownStream(stream, location: transaction.location)
            }
            try transaction.forgetDerived(stream: stream, positions: positions)
            forgotten.append(
                ForgottenStream(stream: stream, events: positions.count, firstPosition: first, lastPosition: last, correlationIds: correlationIds))
        }
        let audits = forgotten.compactMap(audit)
        if !audits.isEmpty {
            try transaction.appendAudits(ErasureAudit.request(appending: audits))
        }
        return forgotten
    }
}
