public import FlowLogBasics

/// How a command opens a log: every backend takes the same three modes.
public enum LogAccess: Sendable {
    /// Read and write; create the log when it does not exist (but never its parent folder or database).
    case readWriteCreating
    /// Read and write an existing log.
    case readWrite
    /// Read an existing log; never creates or changes anything.
    case readOnly
}

/// Snapshots of stream states every K events, so that a state at any position costs O(K) events.
public protocol SnapshotStore: AnyObject {
    /// Events per stream between snapshots (0: none). Every writer of the log uses the stored value.
    func snapshotInterval() throws -> Int
    /// Sets the interval for every writer of this log; 0 turns snapshots off.
    func setSnapshotInterval(_ interval: Int) throws
    /// How many snapshots the log holds.
    func snapshotCount() throws -> Int
}

/// The fingerprint of each stream state the log recorded when it appended an event
/// (`replay --verify` compares them with a replay by today's reducers).
public protocol FingerprintedLog: AnyObject {
    /// The events at positions `from...through` (through the last when `nil`) in position order,
    /// each with the fingerprint recorded for its stream's state after it, where there is one; as
    /// `EventLog.forEachEvent(from:through:_:)`, until `body` returns false. One walk of the log, in
    /// one consistent snapshot.
    func forEachEventWithFingerprint(from: Int, through: Int?, _ body: (RecordedEvent, UInt64?) throws -> Bool) throws

    /// Every event with its fingerprint, grouped by stream: streams in id order (byte order), each
    /// stream's events in version order, until `body` returns false. Each stream is read as the log
    /// stands when its turn comes, and memory holds one page, however many streams there are: the
    /// walk of `replay --summary` and `--verify` on a log of many short sessions.
    func forEachEventWithFingerprintByStream(_ body: (RecordedEvent, UInt64?) throws -> Bool) throws
}

/// A projector's state: how far it got, why it stopped, and (for trackers) what its collector
/// acknowledged before its latest rebuild.
public protocol CheckpointStore: AnyObject {
    /// 0 before the projector's first event.
    func checkpoint(of projector: String) throws -> Int
    func setCheckpoint(_ position: Int, of projector: String) throws
    /// The last position whose calls a tracker's collector acknowledged before its latest rebuild.
    func acknowledgedPosition(of projector: String) throws -> Int
    /// Sets a tracker's checkpoint back to 0, keeping (or, `resending`, forgetting) what its
    /// collector acknowledged, in one transaction.
    func rewindTracker(_ projector: String, resending: Bool) throws
    func setProjectionStatus(_ projector: String, failure: String?) throws
    func projectionStatus(of names: [String]) throws -> [ProjectionStatus]
    /// One projector, one runner: the lease holds the projector until it is released (or its
    /// process dies); a second runner gets `FlowLogError.busy` naming the first.
    func leaseProjector(_ name: String) throws -> any ProjectorLease
    /// `leaseProjector`, with a lease that also ends when its holder stops renewing it for
    /// `timeout` seconds (a process paused, or cut off from the log), where the backend can tell
    /// (PostgreSQL); a backend whose lease lives exactly as long as its process (LMDB's lock)
    /// gives the ordinary one.
    func leaseProjector(_ name: String, expiringAfter timeout: Double) throws -> any ProjectorLease
    /// Who holds each of `names`' leases now, for those held (by any process, this one included):
    /// read without taking them, so that a runner can count the others (partitions) and an
    /// operator see the holders (`projections status`).
    func leaseHolders(of names: [String]) throws -> [String: LeaseHolder]
}

extension CheckpointStore {
    public func leaseProjector(_ name: String, expiringAfter timeout: Double) throws -> any ProjectorLease {
        try leaseProjector(name)
    }
}

/// Held while a process runs a projector; released when the lease goes away.
public protocol ProjectorLease: AnyObject {
    var projector: String { get }
    /// False once this process knows the lease may have passed to another runner (it could not
    /// renew it in time): it must stop, having moved nothing more. Always true for a lease that
    /// lives as long as its process.
    var holds: Bool { get }
}

extension ProjectorLease {
    public var holds: Bool { true }
}

/// One transaction over the storage projector's read models and its checkpoint: whatever it
/// writes commits together, so the read models are exactly once.
public protocol ReadModelTransaction: AnyObject {
    /// The storage projector's checkpoint as this transaction sees it.
    func checkpoint() throws -> Int
    func setCheckpoint(_ position: Int) throws
    func state(of stream: String) throws -> (state: StreamState, version: Int)?
    func setState(_ state: StreamState, version: Int, of stream: String) throws
    /// A row the domain keeps beside the events (an order), placed by the event at `position`.
    func addRow(_ row: KeptRow, stream: String, position: Int) throws
    /// What the app keeps about a user between launches (the seed's LocalStorage).
    var localStorage: any LocalStorage { get }
}

/// The storage projector's read models: each stream's state, every order, each stream's
/// `hasOnboarded` flag, beside the log.
public protocol ReadModelStore: AnyObject {
    /// Runs `body` in one write transaction with the read models and the checkpoint.
    func updateReadModels(_ body: (any ReadModelTransaction) throws -> Void) throws
    /// Empties the read models and sets the checkpoint to 0, in one transaction.
    func resetReadModels() throws
    /// A stream's state from the read model, when it is current (its checkpoint is the log's last
    /// position); `nil` otherwise.
    func readModelState(of stream: String) throws -> (state: StreamState, version: Int)?
    /// Kept rows (orders) of all streams (or of one) in the order they were placed.
    func readModelRows(stream: String?) throws -> [(position: Int, stream: String, row: KeptRow)]
    func readModelFlag(stream: String) throws -> Bool?
    /// Every read model as bytes, in key order: what a rebuild must reproduce exactly.
    func readModelDump() throws -> [UInt8]
}

/// A tiny key-value store, in the spirit of the seed's LocalStorage: what the app keeps about a user
/// between launches. The storage projector keeps each stream's `hasOnboarded` flag in one.
public protocol LocalStorage {
    func bool(forKey key: String) throws -> Bool?
    func set(_ value: Bool, forKey key: String) throws
}

/// Loading events as they were recorded elsewhere (an export), keeping positions, versions and ids,
/// all or nothing.
public protocol EventImporting: AnyObject {
    /// Imports every line of an NDJSON export; returns the number of events imported.
    func importNDJSON(from reader: consuming LineReader, expectedBytes: Int, progress: Progress?) throws -> Int
    /// Imports the events `produce` hands to the sink, with the line each came from.
    func importEvents(_ produce: (any EventSink) throws -> Void) throws -> Int
}

/// Takes imported events one by one; the first that breaks a rule ends the import.
public protocol EventSink: AnyObject {
    func add(_ record: RecordedEvent, line: Int) throws
}

/// A check of everything the backend stores against everything else (`flowlog verify`).
public protocol IntegrityChecking: AnyObject {
    func checkIntegrity(progress: Progress?) throws -> IntegrityReport
}

extension IntegrityChecking {
    public func checkIntegrity() throws -> IntegrityReport { try checkIntegrity(progress: nil) }
}

/// A consistent copy of a live log, made while writers go on (`flowlog backup`). Backends that
/// cannot make one do without: the command line then points to `export` and `import`.
public protocol LogBackup: AnyObject {
    /// Writes a copy of the whole log, as of one moment, into `folder`, an empty folder that exists;
    /// the copy is itself a log of this backend, which `flowlog verify` checks.
    func backup(into folder: String) throws
}

/// Waiting for new events without spinning (`log --follow`, `projections run --follow`).
public protocol LogFollowing: AnyObject {
    /// Returns the last position once it is past `position`, or when `timeout` seconds have passed.
    func waitForEvents(after position: Int, timeout: Double) throws -> Int
}

/// Everything a complete backend offers: the log contract and every capability the features use.
public typealias LogStore = EventLog & SnapshotStore & FingerprintedLog & CheckpointStore & ReadModelStore
    & EventImporting & IntegrityChecking & LogFollowing

/// Reads many streams' versions or states with a few queries, where each one read alone costs a
/// round trip to a server (PostgreSQL: a `send` batch met 1,000 new streams with 3,000 round trips).
/// The command processor uses it when the log has it; an embedded log reads stream by stream.
public protocol StreamBatchReading: AnyObject {
    /// Each stream's current version (0 for one without events), every stream asked for present.
    func versions(of streams: [String]) throws -> [String: Int]
    /// Each stream's current state and version, as `EventLog.state(ofStream:)` gives it.
    func streamStates(ofStreams streams: [String]) throws -> [String: (state: StreamState, version: Int)]
    /// The receipts of those of `commands` (stream, command id) that were accepted, by stream and id.
    func receipts(of commands: [(stream: String, commandId: String)]) throws -> [String: [String: CommandReceipt]]
}

/// Reads streams' states on a thread of its own while the log's writer goes on, without waiting
/// for it: `send`'s reading thread loads the state of each stream it meets for the first time
/// while the writer decides and commits what came before (`SendSession`), where the writer's
/// thread spent a third of a `send` into a grown log loading them (LMDB).
///
/// The states are those of the log's last commit, read in one snapshot: they know nothing of
/// writes not yet committed, so they are taken only for streams this process has not written
/// yet, and treated as cached ones (checked against the log as those are: `CommandProcessor`).
public protocol StatePrefetching: AnyObject {
    /// Each stream's committed state and version, as `EventLog.streamState(ofStream:throughPosition: nil)`
    /// gives it, in `streams`' order. `slimmingPast`: a state with more kept rows than this may come
    /// with the latest only (the others remembered by their ids' hashes, as the processor's cache
    /// keeps a long history), where the log can read it so for less.
    func committedStates(ofStreams streams: [String], slimmingPast: Int?) throws -> [PrefetchedState]
}

/// A stream's committed state as `StatePrefetching` reads it, and where its entry in the log's
/// table of streams falls.
public struct PrefetchedState: Sendable {
    public var state: StreamState
    public var version: Int
    /// The page of the log's table of streams that holds the stream's entry, or that a new
    /// stream's first entry goes to, by a number that stays the page's from one commit to the
    /// next (LMDB: a hash of its first key); `nil` where the log keeps no such pages. An LMDB commit holds
    /// each page it changes in memory until it ends, and a stream's new version changes the page
    /// of its entry: streams whose entries share a page (sessions named in sequence) share it, and
    /// sessions with random ids change a page each. `send` weighs its commits by these pages
    /// (`AppendRules.pagesPerCommit`).
    public var tablePage: Int?

    public init(state: StreamState, version: Int, tablePage: Int? = nil) {
        self.state = state
        self.version = version
        self.tablePage = tablePage
    }
}

extension EventLog {
    /// Each of `streams`' current version (0 for one without events): read together where the log
    /// can (`StreamBatchReading`), else one by one.
    public func currentVersions(of streams: [String]) throws -> [String: Int] {
        if let reader = capabilities.batchReading { return try reader.versions(of: streams) }
        return Dictionary(try streams.map { ($0, try version(of: $0)) }, uniquingKeysWith: { first, _ in first })
    }
}

/// A log whose append answers before its commit is confirmed, so its caller can decide the next
/// batch while the server commits this one (PostgreSQL: the server's work on a batch and the
/// client's on the next overlap instead of taking turns).
public protocol DeferredCommitAppending: AnyObject {
    /// Whether `appendDeferringCommit` really returns before the commit (a wrapper may hold a log
    /// that does not).
    var defersCommit: Bool { get }
    /// `EventLog.append`'s answers, which hold only once `commit.wait()` returns: none of them may
    /// be told to anyone before. The log's next call waits for the commit first and throws its
    /// failure, so nothing is appended after a batch whose commit failed.
    func appendDeferringCommit(_ requests: [AppendRequest]) throws -> (results: [AppendResult], commit: any PendingCommit)
}

/// A commit on its way; `wait` returns once it is durable, or throws why it is not (every call the same).
public protocol PendingCommit: AnyObject {
    func wait() throws
    /// The bytes of the records a write on another thread appended (`AppendedBytes`), once `wait`
    /// returned; 0 when the caller's own thread counted them, or nothing counted.
    var bytesWritten: Int { get }
}

extension PendingCommit {
    public var bytesWritten: Int { 0 }
}

/// A commit that was over before it was handed out (a log that cannot defer).
public final class SettledCommit: PendingCommit {
    public init() {}
    public func wait() throws {}
}

/// The positions of event ids: every backend keeps ids unique (an index, a constraint), and this
/// reads that index. Recorded events from a device carry their own ids (`CommandProcessor.ingest`).
public protocol EventIdLookup: AnyObject {
    /// The position of each of `ids` the log holds.
    func positions(ofEventIds ids: [EventID]) throws -> [EventID: Int]
}
