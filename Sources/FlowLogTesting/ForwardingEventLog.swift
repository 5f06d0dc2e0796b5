public import FlowDomain
public import FlowLogMemory
public import FlowLogStore

/// An event log that hands every call to an in-memory log: tests subclass it to change one thing
/// (appends that fail, commits that are confirmed later) and keep the rest of the contract.
///
/// Unchecked `Sendable`: an open class, which the compiler cannot check; tests share it as they share the in-memory log.
open class ForwardingEventLog: EventLog, @unchecked Sendable {
    public let inner = InMemoryEventLog()

    public init() {}

    open var location: String { inner.location }
    /// None: the contract alone, unless a subclass states more (a deferring log, `deferredCommits`).
    open var capabilities: LogCapabilities {
        LogCapabilities(
            snapshots: nil, batchReading: nil, deferredCommits: nil, following: nil, backup: nil,
            forgetting: nil, keptRowRepair: nil, predictedAppends: nil, prefetching: nil, eventIds: inner.capabilities.eventIds,
            newestLogSchema: inner.capabilities.newestLogSchema, keepsRowsApart: inner.capabilities.keepsRowsApart)
    }
    open func append(_ requests: [AppendRequest]) throws -> [AppendResult] { try inner.append(requests) }
    open func version(of stream: String) throws -> Int { try inner.version(of: stream) }
    open func receipt(stream: String, commandId: String) throws -> CommandReceipt? { try inner.receipt(stream: stream, commandId: commandId) }
    open func lastPosition() throws -> Int { try inner.lastPosition() }
    open func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try inner.forEachEvent(from: from, through: through, body)
    }
    open func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try inner.forEachEvent(inStream: stream, throughPosition: throughPosition, body)
    }
    open func state(ofStream stream: String, throughPosition: Int?) throws -> (state: FlowState, version: Int) {
        try inner.state(ofStream: stream, throughPosition: throughPosition)
    }
    open func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws { try inner.forEachStream(from: start, body) }
    open func event(inStream stream: String, version: Int) throws -> RecordedEvent? { try inner.event(inStream: stream, version: version) }
    open func settings() throws -> LogSettings { inner.settings() }
    open func updateSettings(_ change: (LogSettings, Bool) throws -> LogSettings) throws -> LogSettings { try inner.updateSettings(change) }
}
