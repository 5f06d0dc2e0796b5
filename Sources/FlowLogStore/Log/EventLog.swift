/// One command's worth of events for one stream, to be appended atomically.
public struct AppendRequest: Equatable, Sendable {
    public var stream: String
    /// The stream version the events were decided against; `nil` appends whatever the version is.
    public var expectedVersion: Int?
    /// The command's idempotency key, recorded so that a retry is answered as a duplicate.
    public var commandId: String?
    public var events: [NewEvent]
    /// Set when the events were decided against the events of the previous request for the same stream
    /// in the same batch: the request is then refused (`.conflict`) unless that one was appended.
    public var chained: Bool
    /// The stream's state after each event, as `LogDomain.fingerprint`s, when the caller knows them;
    /// the log keeps them so that a replay can prove it still means the same (`replay --verify`).
    public var fingerprints: [UInt64]
    /// The stream's state after the last event, when the caller knows it; the log keeps it as a
    /// snapshot when the events cross a multiple of its snapshot interval, and as the stream's head
    /// when they cross one of `AppendRules.headInterval` (it is not needed elsewhere).
    public var stateAfter: LogDecider.State? {
        get { keptState?.state }
        set { keptState = newValue.map(KeptState.init) }
    }
    /// `stateAfter`, boxed: few requests carry one, and a state held in place made every request
    /// of a 16,384-command commit 128 bytes larger, pages the kernel had to hand over and zero.
    private var keptState: KeptState?
    /// The rows the events keep beside them (`KeptRow`: the orders they place), in order, read
    /// from the states after them, when the caller folded them; the log derives any it is not
    /// given from the events alone, which do not know everything (an order's currency).
    public var keptRows: [KeptRow]
    /// What the command was (`CommandFingerprint`), kept with its receipt so that a retry with the
    /// same id can be told from a different command that reuses it.
    public var commandFingerprint: UInt64?

    public init(
        stream: String, expectedVersion: Int?, commandId: String?, events: [NewEvent], chained: Bool = false,
        fingerprints: [UInt64] = [], stateAfter: LogDecider.State? = nil, keptRows: [KeptRow] = [], commandFingerprint: UInt64? = nil
    ) {
        (self.stream, self.expectedVersion, self.commandId, self.events, self.chained) = (stream, expectedVersion, commandId, events, chained)
        (self.fingerprints, self.keptRows, self.commandFingerprint) = (fingerprints, keptRows, commandFingerprint)
        keptState = stateAfter.map(KeptState.init)
    }

    private final class KeptState: Equatable, Sendable {
        let state: LogDecider.State
        init(_ state: LogDecider.State) { self.state = state }
        static func == (lhs: KeptState, rhs: KeptState) -> Bool { lhs.state == rhs.state }
    }
}

/// What the log remembers of an accepted command, so that a retry gets the same answer.
public struct CommandReceipt: Equatable, Sendable {
    public var firstPosition: Int
    public var eventCount: Int
    /// The stream's version right after the command's events.
    public var version: Int
    /// The fingerprint of the command (`CommandFingerprint`), when it was given: a later command
    /// with the same id and another fingerprint is an `idempotencyConflict`, not a duplicate.
    /// Every backend stores it with the receipt; receipts written before it existed have none,
    /// and a retry against one is answered as a duplicate, as before.
    public var commandFingerprint: UInt64?

    public init(firstPosition: Int, eventCount: Int, version: Int, commandFingerprint: UInt64? = nil) {
        (self.firstPosition, self.eventCount, self.version, self.commandFingerprint) = (firstPosition, eventCount, version, commandFingerprint)
    }

    public var positions: [Int] { Array(firstPosition..<firstPosition + eventCount) }
}

public enum AppendResult: Equatable, Sendable {
    case appended(CommandReceipt)
    /// The command id was accepted before; nothing was written.
    case duplicate(CommandReceipt)
    /// The stream was not at the expected version; nothing was written.
    case conflict(actualVersion: Int)
}

/// The event log: the single source of truth, and the contract every backend keeps (LMDB, memory,
/// PostgreSQL). The append rules are `AppendRules`, written once; the contract test suite runs
/// unchanged against every implementation. Capabilities beyond it are small protocols of their own
/// (`SnapshotStore`, `CheckpointStore`, … in Capabilities.swift); those a feature may find missing
/// are asked for through `capabilities`, never by casting.
public protocol EventLog: AnyObject, ReplaySource {
    /// Where the log lives, as messages name it: a folder, or a URL without its password.
    var location: String { get }

    /// Appends every request in one atomic, durable step and answers each in order.
    ///
    /// Requests are taken in order. A `chained` request whose predecessor for the same stream in the
    /// batch was not appended is answered `.conflict`: it was decided against events that never
    /// happened. When this returns, every `.appended` event is on disk.
    func append(_ requests: [AppendRequest]) throws -> [AppendResult]

    /// The stream's current version: 0 for a stream that has no events.
    func version(of stream: String) throws -> Int

    /// The receipt of an accepted command, by its id, if there was one.
    func receipt(stream: String, commandId: String) throws -> CommandReceipt?

    /// The last global position: 0 for an empty log.
    func lastPosition() throws -> Int

    /// Calls `body` with the events at positions `from...through` in order, from one consistent
    /// snapshot, until `body` returns `false`.
    func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws

    /// Calls `body` with one stream's events in version order, up to global position `through`.
    func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws

    /// The stream's state and version as of global position `through` (or now). Logs with snapshots
    /// start from the latest usable one.
    func streamState(ofStream stream: String, throughPosition: Int?) throws -> (state: StreamState, version: Int)

    /// Calls `body` with each stream and its version in stream id order (byte order), from the
    /// first id at or after `start` (the first of all when `nil`), until `body` returns `false`.
    ///
    /// A walk of the log's own stream table, a page at a time: its memory does not grow with the
    /// number of streams, which a log of app sessions counts in millions. Each page is read as
    /// the log stands then, so a stream appended or forgotten during a long walk may or may not
    /// be met; `body` may itself append or forget.
    func forEachStream(from start: String?, _ body: (_ stream: String, _ version: Int) throws -> Bool) throws

    /// As `forEachStream(from:_:)`, each stream with its first and last positions and the time of
    /// its last event. A backend whose every lookup is a round trip reads a page of them in one
    /// statement; the others read them through the stream index (`forEachStreamListingByLookup`).
    func forEachStreamListing(from start: String?, _ body: (StreamListing) throws -> Bool) throws

    /// Version `version` of a stream's events, or `nil` when the stream has no such version.
    func event(inStream stream: String, version: Int) throws -> RecordedEvent?

    /// What the log's metadata fixes: its schema and its default currency.
    func settings() throws -> LogSettings

    /// Changes the log's settings in one atomic step: `change` gets the settings and whether the
    /// log holds no event yet, inside the transaction that writes what it answers (so no append
    /// comes between), and may throw to change nothing.
    func updateSettings(_ change: (LogSettings, _ isEmpty: Bool) throws -> LogSettings) throws -> LogSettings

    /// What the log offers beyond this contract. No default: a backend or wrapper states each one.
    var capabilities: LogCapabilities { get }
}

extension EventLog {
    public func forEachStreamListing(from start: String?, _ body: (StreamListing) throws -> Bool) throws {
        try forEachStreamListingByLookup(from: start, body)
    }

    /// Every stream with its version, in stream id order, held at once: for small logs and tests.
    /// What may meet a log of many sessions walks them with `forEachStream(from:_:)`.
    public func streams() throws -> [(stream: String, version: Int)] {
        var streams: [(stream: String, version: Int)] = []
        try forEachStream(from: nil) {
            streams.append(($0, $1))
            return true
        }
        return streams
    }

    /// Up to `limit` events from position `from`, for small reads (tables, tests).
    public func events(from position: Int = 1, limit: Int? = nil) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        try forEachEvent(from: position, through: nil) { event in
            events.append(event)
            return limit.map { events.count < $0 } ?? true
        }
        return events
    }

    public func events(inStream stream: String, throughPosition: Int? = nil) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        try forEachEvent(inStream: stream, throughPosition: throughPosition) {
            events.append($0)
            return true
        }
        return events
    }

    public func state(ofStream stream: String) throws -> (state: LogDecider.State, version: Int) {
        try state(ofStream: stream, throughPosition: nil)
    }

    /// The stream's state and version as of global position `through` (or now), as the domain's value.
    public func state(ofStream stream: String, throughPosition: Int?) throws -> (state: LogDecider.State, version: Int) {
        let (state, version) = try streamState(ofStream: stream, throughPosition: throughPosition)
        return (state.value, version)
    }

    /// The stream's state by folding all its events from the start (a log without snapshots).
    public func streamState(ofStream stream: String, throughPosition: Int?) throws -> (state: StreamState, version: Int) {
        let (state, version) = try replayedState(ofStream: stream, throughPosition: throughPosition)
        return (StreamState(state), version)
    }

    /// The stream's state by folding all its events from the start, never from a snapshot.
    public func replayedState(ofStream stream: String, throughPosition: Int? = nil) throws -> (state: LogDecider.State, version: Int) {
        var fold = StreamFold.initial
        try forEachEvent(inStream: stream, throughPosition: throughPosition) { recorded in
            fold.fold(recorded)
            return true
        }
        return fold.value
    }
}

/// Every log is a replay source: the events of one stream or of all, and a stream's state before a position.
extension EventLog {
    public func forEachEvent(stream: String?, from: Int, to: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        if let stream {
            try forEachEvent(inStream: stream, throughPosition: to) { record in record.position < from ? true : try body(record) }
        } else {
            try forEachEvent(from: from, through: to, body)
        }
    }

    public func state(ofStream stream: String, before position: Int) throws -> LogDecider.State {
        position <= 1 ? LogDecider.initialState : try state(ofStream: stream, throughPosition: position - 1).state
    }
}
