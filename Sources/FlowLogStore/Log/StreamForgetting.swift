import Deciding
public import FlowLogBasics

/// Forgetting a stream for good (`flowlog forget`, docs/spec.md §7): its events' data, stream id and
/// correlation and causation ids become unreadable, and with them everything derived from them,
/// while positions, versions, event ids, kinds and timestamps stay and the hash chain still holds.
///
/// One transaction: a forget is whole or not at all, and it is serialised with appends the way
/// appends are with one another, so an append to the stream lands before it (and is forgotten with
/// it) or after it (and starts the stream anew, at version 1).
public protocol StreamForgetting: AnyObject {
    /// Forgets, in one transaction (all of them or none), every stream of `streams`, each with the
    /// event `audit` gives for it (if any) appended to the erasure audit trail
    /// (`SystemStreams.erasures`) in the same transaction. Throws `ForgetRefusal`: a stream unknown
    /// or already forgotten, or a log whose records cannot be forgotten before `flowlog upgrade`.
    ///
    /// With `lastEventBefore`, `retain`'s batch: each stream is forgotten only while its last event
    /// is still before the cutoff, and one that is gone or young again is left out without refusing.
    /// `retain` lists its sessions first and forgets them batch by batch; a session that got a new
    /// event (or was forgotten by someone else) in between must be left as it is, and checking in
    /// the forgetting transaction is what makes that hold under concurrent appends.
    func forget(streams: [String], lastEventBefore cutoff: Timestamp?, audit: (ForgottenStream) -> NewEvent?) throws -> [ForgottenStream]

    /// Every record from `from` through `through`, forgotten ones included (`isForgotten`), for
    /// those that carry a log on as it is: `export` (tombstones), `copy`, `replay --verify`.
    /// `EventLog.forEachEvent(from:through:)` leaves them out.
    func forEachRecord(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws
}

extension StreamForgetting {
    /// Forgets streams, each with its audit event (see `forget(streams:lastEventBefore:audit:)`).
    public func forget(streams: [String], audit: (ForgottenStream) -> NewEvent?) throws -> [ForgottenStream] {
        try forget(streams: streams, lastEventBefore: nil, audit: audit)
    }

    /// Forgets streams without an audit event.
    public func forget(streams: [String]) throws -> [ForgottenStream] {
        try forget(streams: streams, lastEventBefore: nil) { _ in nil }
    }

    /// Forgets one stream without an audit event.
    public func forget(stream: String) throws -> ForgottenStream {
        try forget(streams: [stream])[0]
    }
}

/// The audit event of one erasure: when (`timestamp`), how many events, the reason, and the keyed
/// pseudonym of the stream id where the operator keeps a key (`HMACSHA256`); never the id itself.
public enum ErasureAudit {
    public static func event(for forgotten: ForgottenStream, reason: String, key: [UInt8]?, eventId: EventID, timestamp: Timestamp) -> NewEvent {
        NewEvent(
            eventId: eventId, timestamp: timestamp, actor: .system,
            event: .system(
                .streamForgotten(.init(events: forgotten.events, reason: reason, pseudonym: key.map { pseudonym(of: forgotten.stream, key: $0) }))))
    }

    /// The audit events of erasures that share a reason and a key, each stamped with `clock`'s time
    /// and a UUIDv7 of its own: what `forget(streams:audit:)` takes.
    public static func events(reason: String, key: [UInt8]?, clock: any WallClock) -> (ForgottenStream) -> NewEvent? {
        var ids = UUIDv7Generator(clock: clock)
        return { forgotten in event(for: forgotten, reason: reason, key: key, eventId: ids.next(), timestamp: clock.now()) }
    }

    /// Why `reason` may not go into the audit trail, or `nil`: it is kept in the log, so it is short,
    /// holds no control characters and does not name a stream it is about (nor other personal data,
    /// which no check can see).
    public static func problem(withReason reason: String, naming streams: [String]) -> String? {
        if reason.count > 200 || reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "must be at most 200 characters without control characters; give a reference, such as a ticket number"
        }
        if let named = streams.first(where: { !$0.isEmpty && reason.contains($0) }) {
            return
                "names the stream \(named); the reason is kept in the log, so it must not hold the id or other personal data. Give a reference, such as a ticket number"
        }
        return nil
    }

    /// The append of erasures' audit events to the system stream that keeps them
    /// (`SystemStreams.erasures`), in the forget's own transaction where the backend can.
    public static func request(appending events: [NewEvent]) -> AppendRequest {
        AppendRequest(stream: SystemStreams.erasures, expectedVersion: nil, commandId: nil, events: events)
    }

    /// HMAC-SHA256 of the stream id under `key`, in hex.
    public static func pseudonym(of stream: String, key: [UInt8]) -> String {
        HMACSHA256.hex(key: key, message: Array(stream.utf8))
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
        (self.stream, self.events, self.firstPosition, self.lastPosition, self.correlationIds) = (
            stream, events, firstPosition, lastPosition, correlationIds
        )
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
            "\(location) is at log schema \(logSchema), whose records cannot be forgotten without breaking its hash chain. Run `\(ProgramName.current) upgrade --db \(location)` once (it writes a backup, then rewrites the records into schema \(RecordLayout.saltedLogSchema)'s layout), then forget again; nothing was changed."
        }
    }
}
