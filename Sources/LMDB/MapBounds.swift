import CLMDB
import FlowLogSystem
import Synchronization

/// The part of the memory map a transaction may read: every key and value LMDB returns is checked
/// against it before anyone reads it.
///
/// LMDB keeps no checksums and trusts its pages: a flipped bit in a node's size makes it hand back
/// a value that runs past the end of the data file, and reading that is a `SIGBUS` (or a `SIGSEGV`
/// past the map), which kills the process before any check of the record could speak. The used
/// part of the map is the pages up to the last one the meta page names (`mdb_env_info`'s
/// `me_last_pgno`), which the file holds (`Environment` refuses a shorter file when it opens).
///
/// The bounds are read once per transaction; each value then costs two comparisons (`admits`).
/// A write transaction's own changed pages are not in the map (LMDB copies a page it changes into
/// heap memory, with `MDB_WRITEMAP` off), nor are the pages it spills in the file's used part:
/// what falls outside the bounds there is looked at again (`admitsWritten`) before it is refused.
public struct MapBounds: Sendable {
    /// The map's first byte; 0 with `used` at its largest when the map's place is not known (see
    /// `MapLocation`), which admits everything.
    let base: UInt
    /// Bytes from `base` through the end of the last used page.
    let used: UInt
    /// Bytes LMDB reserved for the map (its size), of which `used` is the front.
    let reserved: UInt
    let pageSize: UInt
    /// Values of a write transaction may lie in its own pages, outside the map.
    let writing: Bool

    static let unchecked = MapBounds(base: 0, used: .max, reserved: .max, pageSize: 4096, writing: true)

    /// Whether the `count` bytes at `start` lie in the used part of the map: two comparisons.
    @inline(__always)
    func admits(_ start: UnsafeRawPointer?, _ count: Int) -> Bool {
        let offset = UInt(bitPattern: start) &- base
        return offset <= used && UInt(bitPattern: count) <= used &- offset
    }

    /// A write transaction's value outside the used pages: in its own changed pages (heap memory,
    /// wholly outside the map), or in pages it spilled into the file past the used part.
    func admitsWritten(_ start: UnsafeRawPointer?, _ count: Int, _ env: OpaquePointer) -> Bool {
        guard writing else { return false }
        let address = UInt(bitPattern: start)
        let (end, overflow) = address.addingReportingOverflow(UInt(bitPattern: count))
        if overflow { return false }
        let mapEnd = base &+ reserved
        if end <= base || address >= mapEnd { return true }
        guard address >= base, end <= mapEnd else { return false }
        var descriptor: Int32 = -1
        var file = stat()
        guard mdb_env_get_fd(env, &descriptor) == 0, fstat(descriptor, &file) == 0 else { return false }
        return end - base <= UInt(file.st_size)
    }

    /// The page of the map that holds `start`, if it is inside the used part.
    func page(of start: UnsafeRawPointer?) -> Int? {
        let offset = UInt(bitPattern: start) &- base
        return offset < used && base != 0 ? Int(offset / pageSize) : nil
    }

    /// The first key of the leaf page that holds `start`, if that page is a leaf inside the used
    /// part whose first node lies within it. Read through the map in LMDB's page layout (a 16-byte
    /// header whose flags sit at byte 10 and whose lower bound at 12, the nodes' offsets from byte
    /// 16; a node's key size at its byte 6, its key from byte 8), every offset checked against the
    /// page before it is followed.
    func firstKey(ofLeafHolding start: UnsafeRawPointer?) -> UnsafeRawBufferPointer? {
        guard let page = page(of: start), let map = UnsafeRawPointer(bitPattern: base) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: map + page * Int(pageSize), count: Int(pageSize))
        func load(_ offset: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
        // P_LEAF, and at least one node (the lower bound past the header).
        guard load(10) & 0x02 != 0, load(12) >= 18 else { return nil }
        let node = load(16)
        guard node >= 18, node + 8 <= bytes.count else { return nil }
        let size = load(node + 6)
        guard node + 8 + size <= bytes.count else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[(node + 8)..<(node + 8 + size)])
    }

    /// The error for a key or value LMDB returned outside the used pages: damage at the page that
    /// holds its node (known from the key, when the key itself is inside), with the key's bytes
    /// when they can be read, so the caller can name the record. `askedFor` is the key of a
    /// lookup (`mdb_get`), which is the caller's own memory.
    func damage(database: String, key: MDB_val, value: MDB_val, askedFor: Bool = false, operation: StaticString) -> LMDBError {
        let keyInside = askedFor || admits(key.mv_data, key.mv_size)
        let page = askedFor || !keyInside ? self.page(of: value.mv_data) : self.page(of: key.mv_data)
        let keyBytes = keyInside && key.mv_size <= 4096 ? key.mv_data.map { Array(UnsafeRawBufferPointer(start: $0, count: key.mv_size)) } : nil
        let what = keyInside ? "value of \(value.mv_size) bytes" : "key of \(key.mv_size) bytes"
        return LMDBError(
            code: MDB_CORRUPTED, operation: "\(operation) in database \(database)",
            detail: "a stored \(what) runs past the last page the meta page names",
            damage: LMDBError.Damage(database: database, page: page, key: keyBytes))
    }
}

/// Where this process mapped the data file, found once per mapping.
///
/// LMDB does not tell (`mdb_env_info`'s `me_mapaddr` is only set for a fixed map), so it is worked
/// out from a key LMDB returns and the page it must lie on: the main database's first key is in
/// its leftmost leaf, whose number and whose first node's offset are read from the file itself
/// (`pread`, never through the map), so the page's address, less its number of pages, is the map's.
final class MapLocation: Sendable {
    /// The map's address (0 until found) and the page size.
    private let found = Mutex<(base: UInt, pageSize: UInt)>((0, 0))

    init() {}

    /// The bounds for a transaction beginning now.
    func bounds(_ env: OpaquePointer, writing: Bool) -> MapBounds {
        let (base, pageSize) = found.withLock { found in
            if found.base == 0 { found = Self.locate(env) }
            return found
        }
        guard base != 0 else { return .unchecked }
        var info = MDB_envinfo()
        guard mdb_env_info(env, &info) == 0 else { return .unchecked }
        // The file holds the used pages (checked when the environment opened), so this cannot overflow.
        let used = (UInt(bitPattern: info.me_last_pgno) &+ 1) &* pageSize
        return MapBounds(
            base: base, used: used, reserved: UInt(bitPattern: info.me_mapsize),
            pageSize: pageSize, writing: writing)
    }

    /// The map moved (a resize maps the file again): found again at the next transaction.
    func forget() {
        found.withLock { $0.base = 0 }
    }

    /// The map's address and page size, or 0 when they cannot be told (an environment with no
    /// database yet, or writers that kept committing meanwhile): then nothing is checked.
    private static func locate(_ env: OpaquePointer) -> (UInt, UInt) {
        var stat = MDB_stat()
        var descriptor: Int32 = -1
        guard mdb_env_stat(env, &stat) == 0, mdb_env_get_fd(env, &descriptor) == 0 else { return (0, 0) }
        let pageSize = Int(stat.ms_psize)
        for _ in 0..<8 {
            var txn: OpaquePointer?
            guard mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn) == 0, let txn else { return (0, 0) }
            defer { mdb_txn_abort(txn) }
            let snapshot = UInt64(truncatingIfNeeded: mdb_txn_id(txn))
            guard let leaf = PageReader(descriptor: descriptor, pageSize: pageSize).leftmostMainLeaf(snapshot: snapshot) else { continue }
            guard let leaf = leaf else { return (0, 0) }
            var cursor: OpaquePointer?
            guard mdb_cursor_open(txn, 1, &cursor) == 0 else { return (0, 0) }  // 1: MAIN_DBI
            defer { mdb_cursor_close(cursor) }
            var key = MDB_val()
            var value = MDB_val()
            guard mdb_cursor_get(cursor, &key, &value, MDB_FIRST) == 0, let found = key.mv_data else { return (0, 0) }
            let page = UInt(bitPattern: found) &- 8 &- UInt(leaf.firstNode)
            let base = page &- UInt(leaf.number) &* UInt(pageSize)
            let systemPage = UInt(sysconf(Int32(_SC_PAGESIZE)))
            guard base != 0, base % systemPage == 0, base < page else { return (0, 0) }
            return (base, UInt(pageSize))
        }
        return (0, 0)
    }
}

/// Pages read from the data file with `pread`, for `MapLocation` (the structural walk reads the
/// map itself, once its bounds are known).
struct PageReader {
    let descriptor: Int32
    let pageSize: Int

    /// The main database's leftmost leaf as of `snapshot`: its number and its first node's offset.
    /// `nil` when neither meta page is of that snapshot any more (retry); `.some(nil)` when there is
    /// no such leaf (an empty environment, or pages that make no sense).
    func leftmostMainLeaf(snapshot: UInt64) -> (number: UInt64, firstNode: UInt16)?? {
        var meta = [UInt8](repeating: 0, count: 160)
        var found: UInt64?
        for page in 0..<2 {
            guard read(page: UInt64(page), count: meta.count, into: &meta) else { return .some(nil) }
            if Self.load(UInt64.self, meta, 144) == snapshot { found = Self.load(UInt64.self, meta, 128) }
        }
        guard var number = found else { return nil }
        var page = [UInt8](repeating: 0, count: pageSize)
        for _ in 0..<32 {
            guard number != UInt64.max, read(page: number, count: pageSize, into: &page) else { return .some(nil) }
            let flags = Self.load(UInt16.self, page, 10)
            let lower = Int(Self.load(UInt16.self, page, 12))
            guard lower >= 18, Self.load(UInt64.self, page, 0) == number else { return .some(nil) }
            let first = Int(Self.load(UInt16.self, page, 16))
            guard first >= 18, first + 8 <= pageSize else { return .some(nil) }
            if flags & 0x02 != 0 { return (number, UInt16(first)) }
            guard flags & 0x01 != 0 else { return .some(nil) }
            // A branch node holds its child's number in its first six bytes.
            number =
                UInt64(Self.load(UInt16.self, page, first)) | UInt64(Self.load(UInt16.self, page, first + 2)) << 16
                | UInt64(Self.load(UInt16.self, page, first + 4)) << 32
        }
        return .some(nil)
    }

    private func read(page: UInt64, count: Int, into bytes: inout [UInt8]) -> Bool {
        let (offset, overflow) = page.multipliedReportingOverflow(by: UInt64(pageSize))
        guard !overflow, offset < UInt64(Int.max) else { return false }
        return bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) } == count
    }

    static func load<Integer: FixedWidthInteger>(_: Integer.Type, _ bytes: [UInt8], _ offset: Int) -> Integer {
        bytes.withUnsafeBytes { Integer(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Integer.self)) }
    }
}
