import FlowLogBasics
public import FlowLogStore
import LMDB

/// The storage projector's read models in LMDB: `rm.state` (stream → version and state),
/// `rm.orders` (position → stream and kept row), `rm.flags` (stream → hasOnboarded), written in one
/// transaction with the `storage` checkpoint.
extension LMDBEventLog: ReadModelStore {
    static let storageProjector = "storage"

    public func updateReadModels(_ body: (any ReadModelTransaction) throws -> Void) throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in
            try body(LMDBReadModelTransaction(log: self, txn: txn, databases: databases))
        }
    }

    public func resetReadModels() throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in
            for database in databases[1...] { try txn.empty(database) }
            try setCheckpoint(0, of: Self.storageProjector, txn, databases)
        }
    }

    public func readModelState(of stream: String) throws -> (state: StreamState, version: Int)? {
        guard let databases = try projectionDatabases(create: false) else { return nil }
        return try reading { txn in
            guard try checkpoint(of: Self.storageProjector, txn, databases) == (try head(txn).position) else { return nil }
            return try LMDBReadModelTransaction.storedState(of: stream, txn, databases[1]) ?? (StreamState.initial, 0)
        }
    }

    public func readModelRows(stream: String?) throws -> [(position: Int, stream: String, row: KeptRow)] {
        guard let databases = try projectionDatabases(create: false) else { return [] }
        return try reading { txn in
            try txn.withCursor(databases[2]) { cursor in
                var result: [(Int, String, KeptRow)] = []
                var entry = try cursor.first()
                while let (key, value) = entry {
                    var reader = BinaryReader(value)
                    // An empty owner: the row of a forgotten stream, its totals kept without it.
                    let owner = (try? reader.readShortString()) ?? ""
                    if stream == nil || owner == stream,
                        let row = KeptRow.decodeReadModelRow(UnsafeRawBufferPointer(rebasing: value[reader.offset...]))
                    {
                        result.append((Keys.decodePosition(key), owner, row))
                    }
                    entry = try cursor.next()
                }
                return result
            }
        }
    }

    public func readModelFlag(stream: String) throws -> Bool? {
        guard let databases = try projectionDatabases(create: false) else { return nil }
        return try reading { txn in try LMDBLocalStorage(txn: txn, database: databases[3]).bool(forKey: stream) }
    }

    public func readModelDump() throws -> [UInt8] {
        guard let databases = try projectionDatabases(create: false) else { return [] }
        return try reading { txn in
            var bytes: [UInt8] = []
            for database in databases[1...] {
                try txn.withCursor(database) { cursor in
                    var entry = try cursor.first()
                    while let (key, value) = entry {
                        bytes += Keys.littleEndian(UInt64(key.count)) + Array(key) + Keys.littleEndian(UInt64(value.count)) + Array(value)
                        entry = try cursor.next()
                    }
                }
            }
            return bytes
        }
    }
}

/// One write transaction over the read models and the storage checkpoint.
final class LMDBReadModelTransaction: ReadModelTransaction {
    private let log: LMDBEventLog
    private let txn: Transaction
    private let databases: [Database]
    private var scratch = BinaryWriter(capacity: 512)
    let localStorage: any LocalStorage

    init(log: LMDBEventLog, txn: Transaction, databases: [Database]) {
        self.log = log
        self.txn = txn
        self.databases = databases
        localStorage = LMDBLocalStorage(txn: txn, database: databases[3])
    }

    func checkpoint() throws -> Int { try log.checkpoint(of: LMDBEventLog.storageProjector, txn, databases) }

    func setCheckpoint(_ position: Int) throws { try log.setCheckpoint(position, of: LMDBEventLog.storageProjector, txn, databases) }

    func state(of stream: String) throws -> (state: StreamState, version: Int)? { try Self.storedState(of: stream, txn, databases[1]) }

    func setState(_ state: StreamState, version: Int, of stream: String) throws {
        var value = BinaryWriter(capacity: 512)
        value.write(UInt64(version))
        state.encode(into: &scratch)
        scratch.withUnsafeBytes { value.write(bytes: $0) }
        try txn.put(databases[1], key: Array(stream.utf8), value: value.bytes)
    }

    func addRow(_ row: KeptRow, stream: String, position: Int) throws {
        var value = BinaryWriter(capacity: 96)
        value.writeShortString(stream)
        row.encode(into: &value)
        try txn.put(databases[2], key: Keys.position(position), value: value.bytes)
    }

    static func storedState(of stream: String, _ txn: Transaction, _ database: Database) throws -> (state: StreamState, version: Int)? {
        guard let value = try txn.get(database, key: Array(stream.utf8)), value.count > 8,
            let state = StreamState.decode(UnsafeRawBufferPointer(rebasing: value[8...]))
        else { return nil }
        return (state, Keys.decodeInt(value))
    }
}

/// `LocalStorage` over an LMDB database, inside a transaction.
struct LMDBLocalStorage: LocalStorage {
    let txn: Transaction
    let database: Database

    func bool(forKey key: String) throws -> Bool? {
        try txn.get(database, key: Array(key.utf8)).map { $0.first == 1 }
    }

    func set(_ value: Bool, forKey key: String) throws {
        try txn.put(database, key: Array(key.utf8), value: [value ? 1 : 0])
    }
}
