import CLMDB
import CLMDBGuard

/// A named database (LMDB's `MDB_dbi`) inside an environment. Open it once and keep it.
public struct Database: Sendable, Hashable {
    let dbi: MDB_dbi
    /// The name it was opened by, for naming it in the report of a damaged page.
    public let name: String
}

/// A transaction in progress. It lives only inside `Environment.read` or `Environment.write`:
/// byte buffers it returns point into the memory map and stay valid only until that closure returns.
public struct Transaction {
    let handle: OpaquePointer
    /// A read-only transaction's buffers all point into the memory map; a write transaction's may
    /// point into pages it changed, which LMDB keeps in ordinary heap memory.
    public let isReadOnly: Bool
    /// What of the map its keys and values may point into (`MapBounds`).
    let bounds: MapBounds

    /// The snapshot this transaction sees (LMDB's transaction id): two read transactions with the
    /// same id, on two threads, read exactly the same data.
    public var snapshotID: Int { Int(mdb_txn_id(handle)) }

    public struct PutFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Fail with `MDB_KEYEXIST` rather than overwrite.
        public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
        /// The key sorts after every key already there: a fast append (positions, for example).
        public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
    }

    /// Opens (or with `create`, creates) a named database. Creating needs a write transaction.
    /// `nil` opens the main database, whose keys name the named databases (and hold any plain
    /// records a program put there directly).
    public func openDatabase(named name: String?, create: Bool = false) throws(LMDBError) -> Database {
        var dbi = MDB_dbi()
        try check(mdb_dbi_open(handle, name, create ? UInt32(MDB_CREATE) : 0, &dbi), "opening database \(name ?? "(main)")")
        return Database(dbi: dbi, name: name ?? "(main)")
    }

    /// The value stored under `key`, or `nil`. The buffer points into the map: copy what you keep.
    public func get(_ database: Database, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var value = MDB_val()
        let code = flowlog_guarded_get(handle, database.dbi, &keyValue, &value)
        if code == MDB_NOTFOUND { return nil }
        try check(code, "mdb_get")
        if !bounds.admits(value.mv_data, value.mv_size), !bounds.admitsWritten(value.mv_data, value.mv_size, mdb_txn_env(handle)) {
            throw bounds.damage(database: database.name, key: keyValue, value: value, askedFor: true, operation: "mdb_get")
        }
        return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }

    public func get(_ database: Database, key: [UInt8]) throws -> UnsafeRawBufferPointer? {
        try key.withUnsafeBytes { try get(database, key: $0) }
    }

    public func put(_ database: Database, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags = []) throws(LMDBError) {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataValue = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try check(mdb_put(handle, database.dbi, &keyValue, &dataValue, flags.rawValue), "mdb_put")
    }

    public func put(_ database: Database, key: [UInt8], value: [UInt8], flags: PutFlags = []) throws {
        try key.withUnsafeBytes { keyBytes in
            try value.withUnsafeBytes { valueBytes in
                try put(database, key: keyBytes, value: valueBytes, flags: flags)
            }
        }
    }

    /// Deletes `key`; returns whether it was there.
    @discardableResult
    public func delete(_ database: Database, key: [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { (keyBytes: UnsafeRawBufferPointer) throws(LMDBError) -> Bool in
            var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            let code = mdb_del(handle, database.dbi, &keyValue, nil)
            if code == MDB_NOTFOUND { return false }
            try check(code, "mdb_del")
            return true
        }
    }

    /// Removes every record of the database, keeping the database itself.
    public func empty(_ database: Database) throws(LMDBError) {
        try check(mdb_drop(handle, database.dbi, 0), "emptying a database")
    }

    /// Deletes the database itself, its records and its name (its handle is closed when the
    /// transaction commits).
    public func drop(_ database: Database) throws(LMDBError) {
        try check(mdb_drop(handle, database.dbi, 1), "deleting a database")
    }

    /// The number of records in the database.
    public func count(_ database: Database) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try check(mdb_stat(handle, database.dbi, &stat), "mdb_stat")
        return stat.ms_entries
    }

    /// The pages of `database`'s B-tree: branch, leaf and overflow.
    public func pageCount(_ database: Database) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try check(mdb_stat(handle, database.dbi, &stat), "mdb_stat")
        return stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages
    }

    /// The first key of the leaf that holds `bytes` (a key or value this read-only transaction
    /// returned), or `nil` for bytes outside the map's used part or in a write transaction. Two
    /// records on one leaf give the same key, and, unlike the page's number, which each commit
    /// that changes the leaf moves, the key stays the leaf's until it splits.
    public func firstKey(ofLeafHolding bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        isReadOnly ? bounds.firstKey(ofLeafHolding: bytes.baseAddress) : nil
    }

    /// A cursor over `database`, closed when `body` returns.
    ///
    /// `readingAhead`, for a walk through many records: in a read-only transaction, `next()` reads
    /// a batch of records per guarded call into LMDB (up to 64, growing from 4 after each seek),
    /// each checked against the map as one read is. Such a cursor only moves forward: `next()`, or
    /// `first()`, `last()` and the seeks, which start again from where they land. With `scans` of
    /// this transaction's snapshot, it also checks each leaf page its records lie on (`PageScans`).
    public func withCursor<Result>(
        _ database: Database, readingAhead: Bool = false, scans: PageScans? = nil,
        _ body: (inout Cursor) throws -> Result
    ) throws -> Result {
        var cursorHandle: OpaquePointer?
        try check(mdb_cursor_open(handle, database.dbi, &cursorHandle), "mdb_cursor_open")
        var cursor = Cursor(handle: cursorHandle!, bounds: bounds, database: database.name)
        defer { mdb_cursor_close(cursorHandle) }
        guard readingAhead, isReadOnly else { return try body(&cursor) }
        // A write transaction's records may move as it writes: only a read-only one's stay put.
        assert(
            MemoryLayout<MDB_val>.stride == 16 && MemoryLayout<MDB_val>.offset(of: \MDB_val.mv_data) == 8
                && MemoryLayout<flowlog_ahead>.offset(of: \flowlog_ahead.values) == Cursor.aheadValuesOffset,
            "Cursor.next reads the records read ahead as flowlog_ahead lays them out")
        let ahead = UnsafeMutablePointer<flowlog_ahead>.allocate(capacity: 1)
        ahead.initialize(to: flowlog_ahead())
        defer { ahead.deallocate() }
        if let scans, scans.fits(self) {
            ahead.pointee.scanned = scans.words
            ahead.pointee.scanned_pages = scans.pages
            ahead.pointee.page_shift = UInt32(scans.pageSize.trailingZeroBitCount)
        }
        cursor.ahead = ahead
        cursor.aheadKeys = UnsafeRawPointer(ahead)
        return try body(&cursor)
    }
}

/// A position in a database's sorted keys. Every move returns the record it lands on, or `nil`
/// where there is none; the buffers point into the map, valid until the transaction ends.
public struct Cursor {
    public typealias Record = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
    let handle: OpaquePointer
    /// The transaction's bounds, which every record a move lands on is checked against.
    let bounds: MapBounds
    let database: String

    /// Records read ahead (`Transaction.withCursor(readingAhead:)`), or nil.
    var ahead: UnsafeMutablePointer<flowlog_ahead>?
    /// The batch's keys (`ahead`'s), each an `MDB_val` of 16 bytes (its size, then its address),
    /// its values `aheadValuesOffset` bytes further on; the next to hand out, and how many there
    /// are. Kept here, in Swift's own terms, so that `next()` inlines into a walk's loop.
    @usableFromInline var aheadKeys: UnsafeRawPointer?
    @usableFromInline var aheadNext = 0
    @usableFromInline var aheadCount = 0
    /// 16 bytes for each of `FLOWLOG_AHEAD_CAPACITY` keys (asserted against the C layout).
    @inlinable static var aheadValuesOffset: Int { 1_024 }
    /// How many records the next batch reads: 4 after a seek, twice as many each batch up to 64,
    /// so that a walk of a few records reads few more than it needs.
    var aheadWanted: Int32 = 4

    init(handle: OpaquePointer, bounds: MapBounds, database: String) {
        self.handle = handle
        self.bounds = bounds
        self.database = database
    }

    public mutating func first() throws(LMDBError) -> Record? {
        startAgain()
        return try move(MDB_FIRST)
    }
    public mutating func last() throws(LMDBError) -> Record? {
        startAgain()
        return try move(MDB_LAST)
    }

    @inlinable
    public mutating func next() throws(LMDBError) -> Record? {
        if aheadNext < aheadCount, let keys = aheadKeys {
            let key = keys + 16 &* aheadNext
            let value = key + Self.aheadValuesOffset
            aheadNext &+= 1
            return (
                UnsafeRawBufferPointer(start: key.load(fromByteOffset: 8, as: UnsafeRawPointer?.self), count: key.load(as: Int.self)),
                UnsafeRawBufferPointer(start: value.load(fromByteOffset: 8, as: UnsafeRawPointer?.self), count: value.load(as: Int.self))
            )
        }
        return try stepOrReadAhead()
    }

    public mutating func previous() throws(LMDBError) -> Record? {
        precondition(ahead == nil, "a cursor reading ahead only moves forward")
        return try move(MDB_PREV)
    }

    /// The first record whose key is at or after `key`.
    public mutating func seek(atOrAfter key: UnsafeRawBufferPointer) throws(LMDBError) -> Record? {
        startAgain()
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        return try get(&keyValue, MDB_SET_RANGE, "mdb_cursor_get(MDB_SET_RANGE)")
    }

    /// Records read ahead of where the cursor was are dropped: it is placed anew.
    @inline(__always)
    private mutating func startAgain() {
        guard let ahead else { return }
        ahead.pointee.code = 0
        aheadNext = 0
        aheadCount = 0
        aheadWanted = 4
    }

    private func record(_ index: Int) -> Record {
        let key = ahead![index: index, values: false]
        let value = ahead![index: index, values: true]
        return (
            UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
            UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        )
    }

    /// One step, for a cursor that does not read ahead; or, with the records read ahead all
    /// handed out, what ended their batch, or the next batch.
    @usableFromInline
    @inline(never)
    mutating func stepOrReadAhead() throws(LMDBError) -> Record? {
        guard let ahead else { return try move(MDB_NEXT) }
        while true {
            if aheadNext < aheadCount {
                aheadNext += 1
                return record(aheadNext - 1)
            }
            switch ahead.pointee.code {
            case 0:
                flowlog_guarded_cursor_read_ahead(handle, ahead, aheadWanted, bounds.base, bounds.used)
                aheadWanted = min(aheadWanted * 2, FLOWLOG_AHEAD_CAPACITY)
                aheadKeys = UnsafeRawPointer(ahead)
                aheadNext = 0
                aheadCount = Int(ahead.pointee.count)
            case MDB_NOTFOUND:
                // As a cursor at the end answers every next step.
                startAgain()
                return nil
            case FLOWLOG_GUARD_OUTSIDE:
                // Outside the used pages: damage (a read-only transaction has no pages of its own).
                let key = ahead[index: aheadCount, values: false]
                let value = ahead[index: aheadCount, values: true]
                startAgain()
                try checkOutside(key, value, "mdb_cursor_get")
                return (
                    UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
                    UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
                )
            case let code:
                startAgain()
                try check(code, "mdb_cursor_get")
            }
        }
    }

    public mutating func seek(atOrAfter key: [UInt8]) throws -> Record? {
        try key.withUnsafeBytes { try seek(atOrAfter: $0) }
    }

    private mutating func move(_ operation: MDB_cursor_op) throws(LMDBError) -> Record? {
        var key = MDB_val()
        return try get(&key, operation, "mdb_cursor_get")
    }

    /// Runs one `mdb_cursor_get`; `key` is what the operation reads (a seek's target) and where
    /// LMDB writes the key it lands on.
    private mutating func get(_ key: inout MDB_val, _ operation: MDB_cursor_op, _ name: StaticString) throws(LMDBError) -> Record? {
        var value = MDB_val()
        let code = flowlog_guarded_cursor_get(handle, &key, &value, operation)
        if code == MDB_NOTFOUND { return nil }
        try check(code, name.description)
        if !bounds.admits(key.mv_data, key.mv_size) || !bounds.admits(value.mv_data, value.mv_size) {
            try checkOutside(key, value, name)
        }
        return (
            UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
            UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        )
    }

    /// A record outside the used pages: a write transaction's own, or damage.
    @inline(never)
    private func checkOutside(_ key: MDB_val, _ value: MDB_val, _ name: StaticString) throws(LMDBError) {
        let env = mdb_txn_env(mdb_cursor_txn(handle))!
        for part in [key, value] where !bounds.admits(part.mv_data, part.mv_size) && !bounds.admitsWritten(part.mv_data, part.mv_size, env) {
            throw bounds.damage(database: database, key: key, value: value, operation: name)
        }
    }
}

extension UnsafeMutablePointer<flowlog_ahead> {
    /// Record `index` of the batch: its key, or its value.
    subscript(index index: Int, values values: Bool) -> MDB_val {
        UnsafeRawPointer(self).load(fromByteOffset: 16 * index + (values ? Cursor.aheadValuesOffset : 0), as: MDB_val.self)
    }
}
