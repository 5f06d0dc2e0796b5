/// Forgetting a stream for good (`flowlog forget`, docs/spec.md §7): its events' data, stream id and
/// correlation and causation ids become unreadable, and with them everything derived from them,
/// while positions, versions, event ids, kinds and timestamps stay and the hash chain still holds.
///
/// One transaction: a forget is whole or not at all, and it is serialised with appends the way
/// appends are with one another, so an append to the stream lands before it (and is forgotten with
/// it) or after it (and starts the stream anew, at version 1).
public protocol StreamForgetting: AnyObject {
    /// Forgets every stream of `streams` in one transaction (all of them or none), or throws
    /// `ForgetRefusal` (a stream is unknown or already forgotten, or the log's records cannot be
    /// forgotten before `flowlog upgrade`). `retain` forgets a batch of sessions this way.
    func forget(streams: [String]) throws -> [ForgottenStream]

    /// Forgets, in one transaction, each of `streams` whose last event is still before `cutoff`,
    /// and leaves out, without refusing, any that is gone or whose last event is no longer before
    /// it: `retain` lists its sessions first and forgets them batch by batch, and a session that got
    /// a new event (or was forgotten by someone else) between the listing and its batch must be left
    /// as it is. Checking in the forgetting transaction is what makes that hold under concurrent
    /// appends. Throws `ForgetRefusal.upgradeRequired` as `forget(streams:)` does.
    func forget(streams: [String], lastEventBefore cutoff: Timestamp) throws -> [ForgottenStream]

    /// Every record from `from` through `through`, forgotten ones included (`isForgotten`), for
    /// those that carry a log on as it is: `export` (tombstones), `copy`, `replay --verify`.
    /// `EventLog.forEachEvent(from:through:)` leaves them out.
    func forEachRecord(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws
}

extension StreamForgetting {
    /// Forgets one stream (see `forget(streams:)`).
    public func forget(stream: String) throws -> ForgottenStream {
        try forget(streams: [stream])[0]
    }
}

extension StreamForgetting where Self: EventLog {
    /// A fallback for a backend that has not written its own: it checks each stream's last event,
    /// then forgets those still old in one `forget(streams:)`. It is not one transaction: an append
    /// that lands between the check and the forget is forgotten with its stream (as an append just
    /// before any forget is), and a stream forgotten meanwhile by another process makes the batch
    /// refuse. LMDB checks inside its forgetting transaction; a backend should too.
    public func forget(streams: [String], lastEventBefore cutoff: Timestamp) throws -> [ForgottenStream] {
        let old = try streams.filter { stream in
            let version = try version(of: stream)
            guard version > 0, let last = try event(inStream: stream, version: version) else { return false }
            return last.timestamp < cutoff
        }
        return old.isEmpty ? [] : try forget(streams: old)
    }
}

/// What one `forget` erased: enough to answer the person who asked, and to pass on to the vendors
/// who received the stream's events, and nothing of the stream's data.
public struct ForgottenStream: Equatable, Sendable {
    public var stream: String
    /// How many events were forgotten, and the first and last of their positions.
    public var events: Int
    public var firstPosition: Int
    public var lastPosition: Int
    /// The correlation ids its events carried, each once, in the order first met.
    public var correlationIds: [String]

    public init(stream: String, events: Int, firstPosition: Int, lastPosition: Int, correlationIds: [String]) {
        (self.stream, self.events, self.firstPosition, self.lastPosition, self.correlationIds) = (stream, events, firstPosition, lastPosition, correlationIds)
    }
}

/// Why a stream was not forgotten; nothing was changed.
public enum ForgetRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// No such stream, or one forgotten before: the log answers both alike.
    case unknownStream(String, location: String)
    /// The log's records are of the whole layout (log schema below 3).
    case upgradeRequired(location: String, logSchema: Int)

    public var description: String {
        switch self {
        case .unknownStream(let stream, let location):
            "There is no stream \(stream) in \(location) (it never existed, or it was forgotten already). Check the name (--stream); nothing was changed."
        case .upgradeRequired(let location, let logSchema):
            "\(location) is at log schema \(logSchema), whose records cannot be forgotten without breaking its hash chain. Run `flowlog upgrade --db \(location)` once (it writes a backup, then rewrites the records into schema \(RecordLayout.saltedLogSchema)'s layout), then forget again; nothing was changed."
        }
    }
}
