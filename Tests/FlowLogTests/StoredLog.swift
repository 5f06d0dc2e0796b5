import FlowDomain
import FlowLogBasics
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogHistory
@testable import FlowLogLMDB
@testable import FlowLogProjections

#if Network
    import FlowLogPostgres
#endif

/// A log of one kind kept where it is stored (an LMDB folder, a PostgreSQL schema, the one object
/// of a memory log), which a test lets go of and opens again: what a compaction (LMDB's needs the
/// log closed) and an upgrade need beside `LogFixture`. It can be made at an older log schema,
/// written the way a build of that schema writes: memory made so, LMDB's `schema` key and
/// PostgreSQL's `meta` row set while the log is empty (and PostgreSQL's `stream` and `data`
/// columns `NOT NULL`, as builds before schema 3 created them).
final class StoredLog {
    let kind: LogKind
    private let folder: TemporaryDirectory?
    private let url: String?
    private var opened: (any LogStore)?

    init(_ kind: LogKind, logSchema: Int = LogSettings.newestLogSchema) throws {
        self.kind = kind
        switch kind {
        case .memory:
            (folder, url) = (nil, nil)
            opened = InMemoryEventLog(settings: LogSettings(logSchema: logSchema, defaultCurrency: LogSettings.currencyOfEarlierLogs))
        case .lmdb:
            let folder = TemporaryDirectory()
            (self.folder, url) = (folder, nil)
            let log = try LMDBEventLog(path: folder.child("log.lmdb"))
            if logSchema != LMDBEventLog.logSchemaVersion {
                try log.environment.write { txn in try txn.put(log.meta, key: LMDBEventLog.schemaKey, value: Keys.littleEndian(UInt64(logSchema))) }
            }
        #if Network
            case .postgres:
                let server = PostgresServer.shared
                let schema = server.freshName("stored")
                let url = server.url(schema: schema)
                (folder, self.url) = (nil, url)
                let log = try PostgresEventLog.open(url: url, access: .readWriteCreating)
                log.close()
                if logSchema != PostgresEventLog.logSchemaVersion {
                    _ = try server.psql("UPDATE \"\(schema)\".meta SET value = '\(logSchema)' WHERE key = 'schema'")
                }
                if logSchema < 3 {
                    _ = try server.psql("ALTER TABLE \"\(schema)\".events ALTER COLUMN stream SET NOT NULL, ALTER COLUMN data SET NOT NULL")
                }
        #endif
        }
    }

    /// The log, opened again where it was let go (a memory log is never let go: it is its storage).
    func open() throws -> any LogStore {
        if let opened { return opened }
        let log: any LogStore
        switch kind {
        case .memory: preconditionFailure("a memory log is never closed")
        case .lmdb: log = try LMDBEventLog(path: folder!.child("log.lmdb"))
        #if Network
            case .postgres: log = try PostgresEventLog.open(url: url!, access: .readWrite)
        #endif
        }
        opened = log
        return log
    }

    /// Lets go of the log (closing LMDB's environment and lock, PostgreSQL's connections), so that
    /// the next `open` reads what was stored.
    func close() {
        guard kind != .memory else { return }
        #if Network
            (opened as? PostgresEventLog)?.close()
        #endif
        opened = nil
    }

    /// `flowlog compact` where the backend has one: LMDB's compacting copy of the closed log, which
    /// needs the log to itself; PostgreSQL's `VACUUM FULL` on the open log. `nil` for the memory log:
    /// it keeps no freed pages or dead rows, and no `--db` names one.
    func compact() throws -> LogCompaction? {
        switch kind {
        case .memory:
            return nil
        case .lmdb:
            close()
            return try LMDBEventLog.compact(path: folder!.child("log.lmdb"))
        #if Network
            case .postgres:
                return try (try open() as! PostgresEventLog).compact()
        #endif
        }
    }
}

/// Everything a log answers that a compaction or an upgrade must leave as it was: its events (and
/// forgotten records), the fingerprints recorded with them, its streams, states (through heads and
/// snapshots, and replayed, at the end and along the way), receipts, snapshots, checkpoints, read
/// models, currency, and what `verify` counts.
struct LogAnswers: Equatable {
    var lastPosition = 0
    var records: [RecordedEvent] = []
    var events: [RecordedEvent] = []
    var fingerprints: [String] = []
    var streams: [String] = []
    var states: [String] = []
    var receipts: [String] = []
    var snapshots = 0
    var snapshotInterval = 0
    var checkpoint = 0
    var readModels: [UInt8] = []
    var currency = ""
    var integrity = ""

    init(of log: any LogStore, commands: [CommandEnvelope]) throws {
        lastPosition = try log.lastPosition()
        events = try log.events()
        try #require(log.capabilities.forgetting, "every backend forgets").forEachRecord(from: 1, through: nil) {
            records.append($0)
            return true
        }
        try log.forEachEventWithFingerprint(from: 1, through: nil) { event, fingerprint in
            fingerprints.append("\(event.position) \(fingerprint.map(String.init) ?? "-")")
            return true
        }
        for (stream, version) in try log.streams() {
            streams.append("\(stream)@\(version)")
            for position in Array(stride(from: 1, through: lastPosition, by: 13)) + [lastPosition] {
                let stored = try log.state(ofStream: stream, throughPosition: position)
                let replayed = try log.replayedState(ofStream: stream, throughPosition: position)
                #expect(stored.state == replayed.state && stored.version == replayed.version, "\(stream) through \(position)")
                states.append("\(stream)@\(position) v\(stored.version) \(stored.state)")
            }
        }
        receipts = try commands.compactMap { envelope in
            try envelope.commandId.map { "\(envelope.stream) \($0): \(String(describing: try log.receipt(stream: envelope.stream, commandId: $0)))" }
        }
        snapshots = try log.snapshotCount()
        snapshotInterval = try log.snapshotInterval()
        checkpoint = try log.checkpoint(of: StoredLogFilling.tracker)
        readModels = try log.readModelDump()
        currency = try log.settings().defaultCurrency
        let report = try log.checkIntegrity()
        #expect(report.isIntact, "\(report.problems)")
        integrity = "\(report.events) events, \(report.forgotten) forgotten, \(report.streams) streams, intact: \(report.isIntact)"
    }
}

/// How the compaction and upgrade contracts fill a log: through the pipeline, so that fingerprints,
/// snapshots and receipts are recorded as `send` records them.
enum StoredLogFilling {
    /// A tracker whose checkpoint the fill sets half way.
    static let tracker = "tracker.contract"
    static let streams = ["a", "b", "c"]

    /// Random commands to three streams, each with a command id, until the log holds `events`
    /// events more than it did; then the storage projection catches up and a tracker is half way. A log of an older schema
    /// refuses the commands whose events it cannot hold (`logUpgradeRequired`), and the rest fill it.
    static func fill(_ log: any LogStore, events: Int = 150, seed: UInt64 = 21, tag: String = "") throws -> [CommandEnvelope] {
        try log.setSnapshotInterval(7)
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: seed * 1_000_000))
        let target = try log.lastPosition() + events
        var sent: [CommandEnvelope] = []
        while try log.lastPosition() < target {
            let envelope = CommandEnvelope(
                stream: streams.randomElement(using: &rng)!, commandId: "\(tag)cmd-\(sent.count)", command: generator.command(using: &rng))
            sent.append(envelope)
            _ = try processor.handle([envelope])
        }
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 17
        _ = try runner.catchUp(StorageProjector(store: log))
        try log.setCheckpoint(try log.lastPosition() / 2, of: tracker)
        return sent
    }
}
