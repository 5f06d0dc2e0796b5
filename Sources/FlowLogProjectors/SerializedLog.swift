import FlowLogBasics
public import FlowLogStore
import Foundation

/// One log object shared by a runner's threads (`projections run` delivering several tracker parts
/// at once, one thread each): a log object is not safe to call from two threads at once, so every
/// call holds one lock, and the runner's own thread takes it for whatever it does with the log
/// (`exclusively`). What the threads do outside the log (a tracker waiting on its collector, the
/// slow part) goes on side by side.
///
/// The lock is recursive: a call's body (a stream's events handed one by one) may read the log
/// again. Waiting for new events (`LogFollowing`) is left out of its capabilities, since it would
/// hold the lock while it waits: the runner polls the head instead.
public final class SerializedLog: EventLog, CheckpointStore {
    private let inner: any EventLog & CheckpointStore
    private let lock = NSRecursiveLock()

    public init(_ inner: any EventLog & CheckpointStore) { self.inner = inner }

    /// `body`, holding the log's lock: the runner's own work with the log object.
    public func exclusively<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    public var location: String { inner.location }
    public var capabilities: LogCapabilities {
        var capabilities = exclusively { inner.capabilities }
        capabilities.following = nil
        return capabilities
    }

    public func append(_ requests: [AppendRequest]) throws -> [AppendResult] { try exclusively { try inner.append(requests) } }
    public func version(of stream: String) throws -> Int { try exclusively { try inner.version(of: stream) } }
    public func receipt(stream: String, commandId: String) throws -> CommandReceipt? {
        try exclusively { try inner.receipt(stream: stream, commandId: commandId) }
    }
    public func lastPosition() throws -> Int { try exclusively { try inner.lastPosition() } }
    public func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try exclusively { try inner.forEachEvent(from: from, through: through, body) }
    }
    public func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try exclusively { try inner.forEachEvent(inStream: stream, throughPosition: throughPosition, body) }
    }
    public func streamState(ofStream stream: String, throughPosition: Int?) throws -> (state: StreamState, version: Int) {
        try exclusively { try inner.streamState(ofStream: stream, throughPosition: throughPosition) }
    }
    public func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws {
        try exclusively { try inner.forEachStream(from: start, body) }
    }
    public func forEachStreamListing(from start: String?, _ body: (StreamListing) throws -> Bool) throws {
        try exclusively { try inner.forEachStreamListing(from: start, body) }
    }
    public func event(inStream stream: String, version: Int) throws -> RecordedEvent? {
        try exclusively { try inner.event(inStream: stream, version: version) }
    }
    public func settings() throws -> LogSettings { try exclusively { try inner.settings() } }
    public func updateSettings(_ change: (LogSettings, Bool) throws -> LogSettings) throws -> LogSettings {
        try exclusively { try inner.updateSettings(change) }
    }

    public func checkpoint(of projector: String) throws -> Int { try exclusively { try inner.checkpoint(of: projector) } }
    public func setCheckpoint(_ position: Int, of projector: String) throws { try exclusively { try inner.setCheckpoint(position, of: projector) } }
    public func acknowledgedPosition(of projector: String) throws -> Int { try exclusively { try inner.acknowledgedPosition(of: projector) } }
    public func rewindTracker(_ projector: String, resending: Bool) throws {
        try exclusively { try inner.rewindTracker(projector, resending: resending) }
    }
    public func setProjectionStatus(_ projector: String, failure: String?) throws {
        try exclusively { try inner.setProjectionStatus(projector, failure: failure) }
    }
    public func projectionStatus(of names: [String]) throws -> [ProjectionStatus] { try exclusively { try inner.projectionStatus(of: names) } }
    public func leaseProjector(_ name: String) throws -> any ProjectorLease { try exclusively { try inner.leaseProjector(name) } }
    public func leaseProjector(_ name: String, expiringAfter timeout: Double) throws -> any ProjectorLease {
        try exclusively { try inner.leaseProjector(name, expiringAfter: timeout) }
    }
    public func leaseHolders(of names: [String]) throws -> [String: LeaseHolder] { try exclusively { try inner.leaseHolders(of: names) } }
}
