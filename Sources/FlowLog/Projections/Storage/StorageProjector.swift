import FlowDomain
import LMDB

/// A tiny key-value store, in the spirit of the seed's LocalStorage: what the app keeps about a user
/// between launches. The storage projector keeps each stream's `hasOnboarded` flag in one.
public protocol LocalStorage {
    func bool(forKey key: String) throws -> Bool?
    func set(_ value: Bool, forKey key: String) throws
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

/// The read models, exactly once: each stream's cart and onboarding state, the orders of all streams,
/// and a `hasOnboarded` flag per stream, written in the same LMDB transaction as the checkpoint, so
/// after a crash at any point they equal a full replay up to the checkpoint.
public final class StorageProjector: Projector {
    public let name = "storage"
    private let log: LMDBEventLog
    private var scratch = BinaryWriter(capacity: 512)

    public init(log: LMDBEventLog) {
        self.log = log
    }

    public func checkpoint() throws -> Int { try log.checkpoint(of: name) }

    public func project(_ events: [RecordedEvent]) throws {
        guard let databases = try log.projectionDatabases(create: true) else { return }
        let (stateDB, ordersDB, flagsDB) = (databases[1], databases[2], databases[3])
        try log.environment.write { txn in
            let flags = LMDBLocalStorage(txn: txn, database: flagsDB)
            var states: [String: (state: FlowState, version: Int)] = [:]
            // Another process may have projected some of these meanwhile: the checkpoint, read inside
            // this transaction, says which events are still to do, so none is applied twice.
            let done = try log.checkpoint(of: name, txn, databases)
            for record in events where record.position > done {
                var current = try states.removeValue(forKey: record.stream) ?? storedState(of: record.stream, txn, stateDB) ?? (FlowDecider.initialState, 0)
                FlowDecider.evolve(&current.state, record.event)
                current.version = record.version
                if case .cart(.orderPlaced(let placed)) = record.event {
                    var value = BinaryWriter(capacity: 96)
                    value.writeShortString(record.stream)
                    StateCodec.encode(order: Order(orderId: placed.orderId, total: placed.total, itemCount: placed.itemCount), into: &value)
                    try txn.put(ordersDB, key: Keys.position(record.position), value: value.bytes)
                }
                if case .navigation = record.event, try flags.bool(forKey: record.stream) != current.state.navigation.hasOnboarded {
                    try flags.set(current.state.navigation.hasOnboarded, forKey: record.stream)
                }
                states[record.stream] = current
            }
            for (stream, current) in states {
                var value = BinaryWriter(capacity: 512)
                value.write(UInt64(current.version))
                StateCodec.encode(current.state, into: &scratch)
                scratch.withUnsafeBytes { value.write(bytes: $0) }
                try txn.put(stateDB, key: Array(stream.utf8), value: value.bytes)
            }
            if let last = events.last, last.position > done { try log.setCheckpoint(last.position, of: name, txn, databases) }
        }
    }

    public func reset() throws {
        guard let databases = try log.projectionDatabases(create: true) else { return }
        try log.environment.write { txn in
            for database in databases[1...] { try txn.empty(database) }
            try log.setCheckpoint(0, of: name, txn, databases)
        }
    }

    private func storedState(of stream: String, _ txn: Transaction, _ database: Database) throws -> (state: FlowState, version: Int)? {
        guard let value = try txn.get(database, key: Array(stream.utf8)), value.count > 8,
              let state = StateCodec.decode(UnsafeRawBufferPointer(rebasing: value[8...])) else { return nil }
        return (state, Keys.decodeInt(value))
    }

    /// A stream's state from the read model, when the read model is current (its checkpoint is the log's
    /// last position); `nil` otherwise, and the caller replays.
    public func currentState(of stream: String) throws -> (state: FlowState, version: Int)? {
        guard let databases = try log.projectionDatabases(create: false) else { return nil }
        return try log.reading { txn in
            guard try log.checkpoint(of: name, txn, databases) == (try log.head(txn).position) else { return nil }
            return try storedState(of: stream, txn, databases[1]) ?? (FlowDecider.initialState, 0)
        }
    }

    /// Orders of all streams in the order they were placed (or of one stream).
    public func orders(stream: String? = nil) throws -> [(position: Int, stream: String, order: Order)] {
        guard let databases = try log.projectionDatabases(create: false) else { return [] }
        return try log.reading { txn in
            try txn.withCursor(databases[2]) { cursor in
                var result: [(Int, String, Order)] = []
                var entry = try cursor.first()
                while let (key, value) = entry {
                    var reader = BinaryReader(value)
                    if let owner = try? reader.readShortString(), stream == nil || owner == stream,
                       let order = StateCodec.decodeOrder(UnsafeRawBufferPointer(rebasing: value[reader.offset...])) {
                        result.append((Keys.decodePosition(key), owner, order))
                    }
                    entry = try cursor.next()
                }
                return result
            }
        }
    }

    /// The `hasOnboarded` flag the read model keeps for a stream.
    public func hasOnboarded(stream: String) throws -> Bool? {
        guard let databases = try log.projectionDatabases(create: false) else { return nil }
        return try log.reading { txn in try LMDBLocalStorage(txn: txn, database: databases[3]).bool(forKey: stream) }
    }

    /// Every read model as bytes, in key order: what `projections rebuild` must reproduce exactly.
    public func dump() throws -> [UInt8] {
        guard let databases = try log.projectionDatabases(create: false) else { return [] }
        return try log.reading { txn in
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
