public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem
import LMDB

/// The durable event log: an LMDB environment (a folder holding `data.mdb` and `lock.mdb`).
///
/// Named databases:
/// - `meta`: the log schema version;
/// - `events`: position (8 bytes, big-endian, so keys sort by position) → binary record (`RecordCodec`);
/// - `streams`: stream id → its current version (8 bytes, little-endian);
/// - `streamIndex`: stream id, 0x00, version (big-endian) → position (big-endian);
/// - `commands`: stream id, 0x00, command id → first position, event count, version after it;
/// - `eventIds`: event id (16 bytes) → position, so that no event id is ever stored twice;
/// - `snapshots`: stream id, 0x00, version (big-endian) → reducer version, position, the state without
///   its orders (`LogDomain`) and a checksum, every `snapshotInterval` events of a stream;
/// - `orders`: stream id, 0x00, order number (big-endian, from 1) → the stream version that placed it
///   and the order: a snapshot holds only the number of orders, so its size does not grow with them;
/// - `orderPages`: stream id, 0x00, page number (big-endian, from 1) → kept rows `rowsPerPage` × (page − 1)
///   + 1 through `rowsPerPage` × page, encoded one after another, and a checksum. A page is written
///   with its last order and never changes; it lets a history of tens of thousands of orders be read
///   from a few contiguous runs of pages instead of one scattered leaf page per fifty orders;
/// - `fingerprints`: position (big-endian) → the fingerprint of the stream's state after that event
///   (`LogDomain.fingerprint`, 8 bytes little-endian), which `replay --verify` compares with a fresh
///   replay; appended with `MDB_APPEND` beside the records and read in step with them. Logs written
///   before it existed kept the fingerprint after the position in the `streamIndex` value (16
///   bytes); those are still read, for every position the database lacks;
/// - `heads`: stream id → the stream's latest state (every `AppendRules.headInterval` versions);
/// - `batches` (log schema 4): a commit's first position (big-endian) → its stream-index entries
///   and kept rows (`BatchRecord`), written instead of `streamIndex` and `orders` puts and folded
///   into them later (`LMDBEventLog+Fold.swift`); readers add them (`PendingIndex`).
///
/// Every `append` is one write transaction: all of a batch or none of it reaches the disk, and
/// LMDB's writer lock serialises processes that share the folder.
public final class LMDBEventLog: EventLog {
    public static let logSchemaVersion = LogSettings.newestLogSchema
    /// `.readWriteCreating` creates the log's folder, never its parent.
    public typealias Access = LogAccess

    public let path: String
    public var location: String { path }

    /// Snapshots, following and backups; one process's reads are local, and its commits synchronous.
    public var capabilities: LogCapabilities {
        LogCapabilities(
            snapshots: self, batchReading: nil, deferredCommits: nil, following: self, backup: self,
            forgetting: self, keptRowRepair: self, predictedAppends: self, prefetching: self, eventIds: self, newestLogSchema: Self.logSchemaVersion,
            keepsRowsApart: true)
    }
    let environment: Environment

    /// The memory map's current size in bytes.
    public var mapSize: Int { environment.mapSize }
    let meta: Database
    let eventsDB: Database
    let streamsDB: Database
    let streamIndexDB: Database
    let commandsDB: Database
    let eventIdsDB: Database
    let snapshotsDB: Database
    /// The rows the domain keeps beside the events (`KeptRow`): stream and number → the version of
    /// the event that kept it, then the row. Named `orders` on disk, as the first logs named it.
    let rowsDB: Database
    /// Every full page of a stream's rows in one value (`orderPages` on disk); absent from logs
    /// written before row pages existed, when they are opened read-only.
    let rowPagesDB: Database?
    /// Each stream's latest state (`AppendRules.headInterval`); absent from older logs opened read-only.
    let headsDB: Database?
    /// Each position's state fingerprint; absent from older logs opened read-only.
    let fingerprintsDB: Database?
    /// Commits' pending index entries and kept rows (`BatchRecord`); absent from older logs opened read-only.
    let batchesDB: Database?
    /// When pending batch records are folded into the indexes (tests set tiny or huge ones).
    let foldPolicy: FoldPolicy
    /// The pending records the last read transaction loaded (`PendingIndex.load`).
    let pendingCache = PendingRecordCache()
    /// Encodes appended records; reused, so appending allocates nothing per record.
    var encoder = BinaryWriter(capacity: 512)
    /// Salts for appended records in the salted layout, drawn from the kernel in batches.
    var salts = RecordSalts()
    /// The last append's puts, written and emptied, with their buffers' room: the next append
    /// (of a `send` of many, about as large) fills them without growing them from nothing, which
    /// copied each buffer a dozen times a commit and touched fresh pages each time.
    var reusablePuts = PendingEventPuts()
    /// The shared log lock (`LogLock`), held while this object lives, so that `compact` never swaps
    /// `data.mdb` under it.
    let logLock: LogLock

    /// Opens the log at `path` (a folder). `initialMapSize` only matters for a new log or a larger
    /// map: the map grows by itself whenever it is full.
    public init(
        path: String, access: Access = .readWriteCreating, initialMapSize: Int = 1 << 30,
        foldPolicy: FoldPolicy = .fromEnvironment
    ) throws(FlowLogError) {
        self.path = path
        self.foldPolicy = foldPolicy
        try LogFolder.prepare(path: path, creating: access == .readWriteCreating)
        logLock = try LogLock.shared(in: path, readOnly: access == .readOnly)
        // A staged import holds the log lock exclusively while its copy lives: one found now was
        // left by an import that was killed, and a writer removes it (`removeStagedImport`).
        if access != .readOnly { try? Self.removeStagedImport(path + "/" + Self.stagedImportName, log: path) }
        var options = Environment.Options()
        options.initialMapSize = access == .readOnly ? initialMapSize : Self.writersMapSize(path: path, initialMapSize: initialMapSize)
        options.readOnly = access == .readOnly
        options.maxDatabases = 20
        do {
            environment = try Self.openEnvironment(path: path, options: options)
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        // Before anything is created: another program's environment gains nothing from FlowLog.
        let recognition: LogRecognition
        do {
            recognition = try LogRecognition.inspect(environment)
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        if let refusal = recognition.refusal {
            logLock.discardIfCreated()
            throw .notALog(path: path, reason: refusal)
        }
        do {
            let (names, optional) = (Self.databaseNames, Self.laterDatabaseNames)
            let databases: [Database]
            let later: [Database?]
            if access == .readOnly {
                databases = try environment.openDatabases(named: names, create: false)
                let environment = self.environment
                later = try optional.map { try Self.openOptional($0, environment) }
            } else {
                // One write transaction for all of them: every writing command opens the log.
                let all = try environment.openDatabases(named: names + optional, create: true)
                (databases, later) = (Array(all.prefix(names.count)), all.dropFirst(names.count).map { $0 })
            }
            (meta, eventsDB, streamsDB, streamIndexDB, commandsDB, eventIdsDB, snapshotsDB, rowsDB) =
                (databases[0], databases[1], databases[2], databases[3], databases[4], databases[5], databases[6], databases[7])
            (rowPagesDB, headsDB, fingerprintsDB, batchesDB) = (later[0], later[1], later[2], later[3])
        } catch let error as LMDBError where error.isNotFound {
            throw .notALog(path: path, reason: "it is an LMDB environment without FlowLog's databases")
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        try checkSchema(writable: access != .readOnly)
    }

    /// The map a writer opens with: room for half the data file again. LMDB maps a file larger
    /// than the map asked for at its size exactly, so a log of more than 1 GiB (a copy, an
    /// import, an upgrade) opened full: `send`'s first predicted append, which may not grow the
    /// map while reads run beside it, wrote nothing, and its commands were decided again.
    static func writersMapSize(path: String, initialMapSize: Int) -> Int {
        var info = stat()
        guard stat(path + "/data.mdb", &info) == 0 else { return initialMapSize }
        return max(initialMapSize, Int(info.st_size) / 2 * 3)
    }

    /// The databases every log holds, in the order `init` assigns them.
    static let databaseNames = ["meta", "events", "streams", "streamIndex", "commands", "eventIds", "snapshots", "orders"]
    /// The databases that came after the first logs (see `openOptional`), in the order `init` assigns them.
    static let laterDatabaseNames = ["orderPages", "heads", "fingerprints", "batches"]

    /// Row pages, heads, fingerprints and batch records came after the first logs, so a read-only
    /// open of an older log goes without them: its kept rows are read one by one, its streams from
    /// snapshots, its fingerprints from the stream index, and nothing of it is pending.
    static func openOptional(_ name: String, _ environment: Environment) throws -> Database? {
        do {
            return try environment.openDatabases(named: [name], create: false)[0]
        } catch let error as LMDBError where error.isNotFound {
            return nil
        }
    }

    func checkSchema(writable: Bool) throws(FlowLogError) {
        let key = Array("schema".utf8)
        do {
            let found: Int? = try environment.read { txn in
                try txn.get(meta, key: key).map { Keys.decodeInt($0) }
            }
            if let found {
                if found > Self.logSchemaVersion {
                    throw FlowLogError.newerSchema(path: path, found: found, supported: Self.logSchemaVersion)
                }
            } else if writable {
                try environment.write { txn in
                    try txn.put(meta, key: key, value: withUnsafeBytes(of: UInt64(Self.logSchemaVersion).littleEndian, Array.init))
                }
            }
        } catch let error as FlowLogError {
            throw error
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
    }

    func head(_ txn: Transaction) throws -> (position: Int, hash: UInt64) {
        try txn.withCursor(eventsDB) { cursor in
            guard let last = try cursor.last() else { return (0, RecordCodec.genesisHash) }
            let position = Keys.decodePosition(last.key)
            guard let hash = RecordCodec.storedHash(of: last.value) else {
                throw FlowLogError.damaged(RecordDamage(position: position, stream: nil, problem: "the record is truncated"))
            }
            return (position, hash)
        }
    }

    /// The key is the name's own bytes, not an array made of them: a lookup per new stream, on
    /// both threads of `send`, allocated one each.
    func storedVersion(of stream: String, _ txn: Transaction) throws -> Int {
        var name = stream
        return try name.withUTF8 { utf8 in
            try txn.get(streamsDB, key: UnsafeRawBufferPointer(utf8)).map { Keys.decodeInt($0) } ?? 0
        }
    }

    func storedReceipt(stream: String, commandId: String, _ txn: Transaction) throws -> CommandReceipt? {
        try txn.get(commandsDB, key: Keys.command(stream, commandId)).map(Keys.decodeReceipt)
    }

    func hashBefore(position: Int, _ txn: Transaction) throws -> UInt64 {
        guard position > 1 else { return RecordCodec.genesisHash }
        guard let bytes = try txn.get(eventsDB, key: Keys.position(position - 1)),
            let hash = RecordCodec.storedHash(of: bytes)
        else {
            throw FlowLogError.damaged(RecordDamage(position: position - 1, stream: nil, problem: "it is missing or truncated"))
        }
        return hash
    }

    /// As `RecordCodec.decode(_:expectedPosition:previousHash:into:)`, with damage thrown as `FlowLogError`.
    func decode(_ bytes: UnsafeRawBufferPointer, position: Int, previousHash: UInt64, into record: inout RecordedEvent) throws -> UInt64 {
        do {
            return try RecordCodec.decode(bytes, expectedPosition: position, previousHash: previousHash, into: &record)
        } catch {
            throw FlowLogError.damaged(error)
        }
    }

    func decode(_ bytes: UnsafeRawBufferPointer, position: Int, previousHash: UInt64) throws -> (RecordedEvent, UInt64) {
        var record = RecordedEvent.placeholder
        let hash = try decode(bytes, position: position, previousHash: previousHash, into: &record)
        return (record, hash)
    }

    func reading<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        do {
            return try environment.read(body)
        } catch let error as LMDBError {
            throw FlowLogError.reading(error, path: path)
        }
    }

}

extension LMDBEventLog {
    /// Opens the environment. A read-only open of a log whose lock file this user may not write
    /// (a folder of mode 0555, a `lock.mdb` of mode 0444, or no lock file in a folder that cannot
    /// take one) goes without LMDB's lock file (`MDB_NOLOCK`), so such a log can be read at all;
    /// on a read-only file system LMDB itself reads without locks. Records are still checked one by
    /// one (chain hash), so a writer that changes the log meanwhile shows up as damage, not as a
    /// wrong answer.
    static func openEnvironment(path: String, options: Environment.Options) throws(LMDBError) -> Environment {
        let firstError: LMDBError
        do {
            return try Environment(path: path, options: options)
        } catch {
            firstError = error
        }
        guard options.readOnly, firstError.code == EACCES || firstError.code == EPERM else { throw firstError }
        var withoutLock = options
        withoutLock.noLock = true
        return try Environment(path: path, options: withoutLock)
    }
}
