/// What a log offers beyond the `EventLog` contract, which the features ask for by name instead of
/// casting: the command processor learns the snapshot interval, reads many streams at once and
/// overlaps commits where the log can; `log --follow` waits without spinning; `copy` carries the
/// snapshot interval; `backup` copies a live log.
///
/// Every backend and every wrapper states its capabilities (`EventLog.capabilities` has no default,
/// and this initializer takes every member), so a wrapper that forgets to pass one on does not
/// compile. Earlier builds discovered them by casting to each protocol, and a wrapper that forgot
/// `SnapshotStore` compiled, ran, and held a copy of each stream's state for every command until
/// the commit.
public struct LogCapabilities {
    /// Snapshots every K events (`SnapshotStore`): the interval, and whether to hand states over.
    public var snapshots: (any SnapshotStore)?
    /// Versions, states and receipts of many streams in a few queries (`StreamBatchReading`).
    public var batchReading: (any StreamBatchReading)?
    /// Appends that answer before their commit is confirmed (`DeferredCommitAppending`).
    public var deferredCommits: (any DeferredCommitAppending)?
    /// Waiting for new events without spinning (`LogFollowing`).
    public var following: (any LogFollowing)?
    /// A consistent copy of the live log (`LogBackup`).
    public var backup: (any LogBackup)?
    /// Forgetting a stream for good (`StreamForgetting`, log schema 3).
    public var forgetting: (any StreamForgetting)?
    /// Repairing the rows earlier FlowLogs kept wrong beside the events (`KeptRowRepairing`).
    public var keptRowRepair: (any KeptRowRepairing)?
    /// Appends committed only as predicted (`PredictedAppending`): a `BackgroundAppender` writes
    /// them on a thread of its own, so the caller decides the next batch meanwhile (LMDB).
    public var predictedAppends: (any PredictedAppending)?
    /// Reading states on another thread while the writer goes on (`StatePrefetching`, LMDB).
    public var prefetching: (any StatePrefetching)?
    /// Where an event id is stored, if anywhere (`EventIdLookup`): what tells a device's event that
    /// reuses an id from a duplicate, before the append would fail on it.
    public var eventIds: (any EventIdLookup)?
    /// The newest log schema the backend writes: what `flowlog upgrade` raises its logs to.
    public var newestLogSchema: Int
    /// Whether the log keeps the rows the domain keeps beside its events apart from the states it
    /// stores (heads and snapshots hold their count only, as LMDB's do): then a state handed to an
    /// append needs only their count and the latest, and the processor caches states without the
    /// older ones. A log whose snapshots hold whole states (PostgreSQL, memory) says no.
    public var keepsRowsApart: Bool

    public init(
        snapshots: (any SnapshotStore)?, batchReading: (any StreamBatchReading)?,
        deferredCommits: (any DeferredCommitAppending)?, following: (any LogFollowing)?, backup: (any LogBackup)?,
        forgetting: (any StreamForgetting)?, keptRowRepair: (any KeptRowRepairing)?, predictedAppends: (any PredictedAppending)?,
        prefetching: (any StatePrefetching)?, eventIds: (any EventIdLookup)?, newestLogSchema: Int, keepsRowsApart: Bool
    ) {
        self.eventIds = eventIds
        self.prefetching = prefetching
        self.predictedAppends = predictedAppends
        self.keepsRowsApart = keepsRowsApart
        self.forgetting = forgetting
        self.keptRowRepair = keptRowRepair
        self.newestLogSchema = newestLogSchema
        self.snapshots = snapshots
        self.batchReading = batchReading
        self.deferredCommits = deferredCommits
        self.following = following
        self.backup = backup
    }
}
