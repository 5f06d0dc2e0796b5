public import FlowLogBasics
import FlowLogMemory
public import FlowLogStore

/// The stores a server or a projector needs beside the contract, handed to the in-memory log as
/// well, so that a forwarding log can stand where a whole `LogStore` is asked for while its
/// `capabilities` still offer only what a subclass states (a server's log that cannot forget).
extension ForwardingEventLog: SnapshotStore, FingerprintedLog, CheckpointStore, ReadModelStore, EventImporting, IntegrityChecking, LogFollowing {
    public func snapshotInterval() throws -> Int { try inner.snapshotInterval() }
    public func setSnapshotInterval(_ interval: Int) throws { try inner.setSnapshotInterval(interval) }
    public func snapshotCount() throws -> Int { try inner.snapshotCount() }

    public func forEachEventWithFingerprint(from: Int, through: Int?, _ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        try inner.forEachEventWithFingerprint(from: from, through: through, body)
    }
    public func forEachEventWithFingerprintByStream(_ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        try inner.forEachEventWithFingerprintByStream(body)
    }

    public func checkpoint(of projector: String) throws -> Int { try inner.checkpoint(of: projector) }
    public func setCheckpoint(_ position: Int, of projector: String) throws { try inner.setCheckpoint(position, of: projector) }
    public func acknowledgedPosition(of projector: String) throws -> Int { try inner.acknowledgedPosition(of: projector) }
    public func rewindTracker(_ projector: String, resending: Bool) throws { try inner.rewindTracker(projector, resending: resending) }
    public func setProjectionStatus(_ projector: String, failure: String?) throws { try inner.setProjectionStatus(projector, failure: failure) }
    public func projectionStatus(of names: [String]) throws -> [ProjectionStatus] { try inner.projectionStatus(of: names) }
    public func leaseProjector(_ name: String) throws -> any ProjectorLease { try inner.leaseProjector(name) }
    public func leaseProjector(_ name: String, expiringAfter timeout: Double) throws -> any ProjectorLease {
        try inner.leaseProjector(name, expiringAfter: timeout)
    }
    public func leaseHolders(of names: [String]) throws -> [String: LeaseHolder] { try inner.leaseHolders(of: names) }

    public func updateReadModels(_ body: (any ReadModelTransaction) throws -> Void) throws { try inner.updateReadModels(body) }
    public func resetReadModels() throws { try inner.resetReadModels() }
    public func readModelState(of stream: String) throws -> (state: StreamState, version: Int)? { try inner.readModelState(of: stream) }
    public func readModelRows(stream: String?) throws -> [(position: Int, stream: String, row: KeptRow)] { try inner.readModelRows(stream: stream) }
    public func readModelFlag(stream: String) throws -> Bool? { try inner.readModelFlag(stream: stream) }
    public func readModelDump() throws -> [UInt8] { try inner.readModelDump() }

    public func importNDJSON(from reader: consuming LineReader, expectedBytes: Int, progress: Progress?) throws -> Int {
        try inner.importNDJSON(from: reader, expectedBytes: expectedBytes, progress: progress)
    }
    public func importEvents(_ produce: (any EventSink) throws -> Void) throws -> Int { try inner.importEvents(produce) }
    public func checkIntegrity(progress: Progress?) throws -> IntegrityReport { try inner.checkIntegrity(progress: progress) }
    public func waitForEvents(after position: Int, timeout: Double) throws -> Int { try inner.waitForEvents(after: position, timeout: timeout) }
}
