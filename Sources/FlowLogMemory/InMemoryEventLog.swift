public import FlowLogStore

/// An event log in memory with the same contract and capabilities as every other backend, for
/// tests, for scratch logs (a session file dropped on the inspector) and for fast what-if runs.
/// Not durable, not shared between processes, not thread-safe: its owner serialises calls.
/// `readOnly()` gives its read-only form, which may be read from several threads at once.
///
/// Its positions run 1, 2, 3, … with no gap, so the record at position `p` is `events.records[p - 1]`.
public final class InMemoryEventLog: EventLog {
    /// The records and each stream's indices into them, shared with `ReadOnlyMemoryLog`.
    var events = MemoryEvents()
    /// The fingerprint recorded with each event (by position − 1), where the appender knew it.
    var fingerprints: [UInt64?] = []
    var receipts: [String: [String: CommandReceipt]] = [:]
    var snapshotEvery = 0
    var snapshots: [String: [(version: Int, state: LogDecider.State)]] = [:]
    var checkpoints: [String: Int] = [:]
    var acknowledged: [String: Int] = [:]
    var failures: [String: String] = [:]
    var leased: Set<String> = []
    var readModels = ReadModels()
    var storedSettings: LogSettings

    /// An empty log of `settings` (a new log's, unless a test wants an older schema).
    public init(settings: LogSettings = .newLog()) { storedSettings = settings }

    public func settings() -> LogSettings { storedSettings }

    public func updateSettings(_ change: (LogSettings, Bool) throws -> LogSettings) throws -> LogSettings {
        let changed = try change(storedSettings, events.records.isEmpty)
        try storedSettings.checkSchemaChange(to: changed, location: location)
        storedSettings = changed
        return storedSettings
    }

    public var location: String { "memory" }

    /// Snapshots, following and forgetting; nothing to batch, defer or back up in memory.
    public var capabilities: LogCapabilities {
        LogCapabilities(
            snapshots: self, batchReading: nil, deferredCommits: nil, following: self, backup: nil,
            forgetting: self, keptRowRepair: nil, predictedAppends: nil, prefetching: nil, eventIds: nil,
            newestLogSchema: LogSettings.newestLogSchema,
            keepsRowsApart: false)
    }

    public func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
        var transaction = Transaction(log: self)
        return try AppendRules.apply(requests, in: &transaction)
    }

    /// Appends straight into the log's arrays: nothing here can fail halfway, so a batch is
    /// all or nothing without a journal.
    private struct Transaction: AppendTransaction {
        let log: InMemoryEventLog
        var snapshotInterval: Int { log.snapshotEvery }

        func head() -> (position: Int, hash: UInt64) { (log.events.records.count, RecordCodec.genesisHash) }
        func storedVersion(of stream: String) -> Int { log.events.version(of: stream) }
        func storedReceipt(stream: String, commandId: String) -> CommandReceipt? { log.receipts[stream]?[commandId] }

        func store(_ record: RecordedEvent, chainedTo previousHash: UInt64, fingerprint: UInt64?, streamOrdinal: Int) -> UInt64 {
            log.events.append(record)
            log.fingerprints.append(fingerprint)
            return previousHash
        }

        func storeReceipt(_ receipt: CommandReceipt, stream: String, commandId: String) {
            log.receipts[stream, default: [:]][commandId] = receipt
        }

        /// Nothing: this log's snapshots hold the whole state.
        func keep(_ row: KeptRow, stream: String, version: Int) {}

        func storeSnapshot(_ state: StreamState, stream: String, version: Int, position: Int) {
            log.snapshots[stream, default: []].append((version, state.value))
        }
        func finish(versions: [String: Int]) {}
    }

    public func version(of stream: String) throws -> Int { events.version(of: stream) }

    public func receipt(stream: String, commandId: String) throws -> CommandReceipt? { receipts[stream]?[commandId] }

    public func lastPosition() throws -> Int { events.lastPosition }

    public func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        let records = events.records
        let upper = min(through ?? records.count, records.count)
        guard from <= upper else { return }
        for record in records[max(from, 1) - 1..<upper] where !record.isForgotten {
            guard try body(record) else { return }
        }
    }

    public func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try events.forEachEvent(inStream: stream, throughPosition: throughPosition, body)
    }

    /// Walks a copy of the storage (the names sorted once until a stream comes or goes), so `body`
    /// may append or forget.
    public func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws {
        events.sortNames()
        let events = self.events
        try events.forEachStream(from: start, body)
    }

    public func event(inStream stream: String, version: Int) throws -> RecordedEvent? { events.event(inStream: stream, version: version) }

    /// The log as it is now, read-only and safe to read from several threads at once. It shares the
    /// storage (copied only when this log next changes) and the reading code.
    public func readOnly() -> ReadOnlyMemoryLog { ReadOnlyMemoryLog(events) }
}
