import CLMDBGuard
import FlowLogSystem

/// One page of an LMDB data file at a time, copied into one buffer, for the structure walk
/// (`StructureWalk`).
///
/// The walk looks at a copy, never at LMDB's map in place: a damaged page must be looked at byte
/// by byte without LMDB following its pointers (which is what the walk is there to check), and
/// one buffer keeps the memory the walk needs at one page, whatever the size of the log. The copy
/// comes from LMDB's own map when the walk runs in a read transaction whose map's place is known
/// (`MapBounds`), and the page lies in its used part: a copy under the signal guard
/// (`flowlog_guarded_copy_page`), which a fault cannot get past, and no system call; a leaf whose
/// nodes are all plain keys and values lying whole in the page is summed there, under the guard,
/// and only its header copied. Otherwise, or when the copy faults, from the file with `pread`.
///
/// LMDB 0.9's layout on a 64-bit machine: a 16-byte page header (its number, a pad, its flags, then
/// the lower and upper bounds of its free space, or an overflow run's page count), the nodes'
/// offsets from byte 16 on; each node an 8-byte header (data size low and high, or a child page
/// number with the flags as its top 16 bits; flags; key size), then key and data.
struct DataFilePage {
    static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04, meta: UInt16 = 0x08
    /// The flags that say what a page is (branch, leaf, overflow, meta, leaf2, sub-page); LMDB's
    /// in-memory flags (dirty, loose, keep) are not written, but are not looked at either.
    static let roles: UInt16 = 0x6F
    static let headerSize = 16
    static let nodeHeaderSize = 8
    static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
    /// An `MDB_db` record: pad, flags, depth, branch, leaf and overflow page counts, entries, root.
    static let databaseRecordSize = 48

    let descriptor: Int32
    let pageSize: Int
    /// The page read last: `pageSize` bytes, which every read of the walk stays inside.
    let buffer: UnsafeMutableRawPointer
    /// LMDB's map of this file: its first byte and how many whole pages of it are in use.
    private var map: (base: UnsafeRawPointer, pages: Int)?
    /// Leaves found whole in the same snapshot, as walks of records read them: only their header is
    /// copied.
    private var scans: PageScans?

    /// The file at `path` with the page size its first meta page names; `nil` when it cannot be
    /// opened or names no page size LMDB uses (`Environment` refuses such a file before this runs).
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var header = [UInt8](repeating: 0, count: 48)
        let size = pread(descriptor, &header, 48, 0) == 48 ? Int(Self.load(UInt32.self, header, 40)) : 0
        guard size >= 512, size <= 65536, size & (size - 1) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.pageSize = size
        buffer = .allocate(byteCount: size, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
    }

    func release() {
        close(descriptor)
        buffer.deallocate()
    }

    var readsMap: Bool { map != nil }

    /// Reads pages from LMDB's map where `bounds` admits them, once the map is seen to hold this
    /// file: its two meta pages' first `metas` bytes, copied from the map, are the file's.
    mutating func useMap(_ bounds: MapBounds, metas: [[UInt8]], scans: PageScans?) {
        guard bounds.base != 0, bounds.pageSize == UInt(pageSize), bounds.used != .max,
            let base = UnsafeRawPointer(bitPattern: bounds.base)
        else { return }
        let pages = Int(bounds.used / bounds.pageSize)
        guard pages >= 2 else { return }
        for (page, bytes) in metas.enumerated() {
            var copy = [UInt8](repeating: 0, count: bytes.count)
            let code = copy.withUnsafeMutableBytes { flowlog_guarded_copy($0.baseAddress, base + page * pageSize, bytes.count) }
            guard code == 0, copy == bytes else { return }
        }
        map = (base, pages)
        if let scans, scans.base == bounds.base, scans.pageSize == pageSize { self.scans = scans }
    }

    /// Set by `read` for a leaf page whose every node is a plain key and value lying whole in it:
    /// the bytes they fill. Only the page's header is then in the buffer, all the walk needs of it.
    private(set) var plainLeafFilled: Int?

    /// Reads page `number` into the buffer (`wholePage`: always all of it); false when the file
    /// does not hold it whole.
    mutating func read(_ number: Int, wholePage: Bool = true) -> Bool {
        plainLeafFilled = nil
        if let map, number >= 0, number < map.pages {
            if !wholePage, let scans, scans.contains(number),
                flowlog_guarded_copy(buffer, map.base + number &* pageSize, Self.headerSize) == 0
            {
                // Checked whole where it was found (`flowlog_leaf_is_whole`): its nodes fill the page past `upper`.
                plainLeafFilled = pageSize - upper
                return true
            }
            var filled = -1
            if flowlog_guarded_copy_page(buffer, map.base + number &* pageSize, pageSize, wholePage ? 1 : 0, &filled) == 0 {
                if filled >= 0 { plainLeafFilled = filled }
                return true
            }
        }
        let (offset, overflow) = number.multipliedReportingOverflow(by: pageSize)
        guard !overflow else { return false }
        return pread(descriptor, buffer, pageSize, off_t(offset)) == pageSize
    }

    /// `count` bytes from `offset` in the file, for a value in an overflow run.
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: count)
        if let map, offset >= 0, count <= map.pages &* pageSize, offset <= map.pages &* pageSize &- count {
            let code = result.withUnsafeMutableBytes { flowlog_guarded_copy($0.baseAddress, map.base + offset, count) }
            if code == 0 { return result }
        }
        return result.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, count, off_t(offset)) }) == count ? result : nil
    }

    /// The page in the buffer, for what reads more than a number from it.
    var page: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: buffer, count: pageSize) }

    @inline(__always)
    func u16(_ offset: Int) -> Int { Int(UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))) }
    @inline(__always)
    func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }

    var number: UInt64 { u64(0) }
    var flags: UInt16 { UInt16(truncatingIfNeeded: u16(10)) }
    var lower: Int { u16(12) }
    var upper: Int { u16(14) }
    /// An overflow run's first page: how many pages the run holds.
    var overflowPages: Int { Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: 12, as: UInt32.self))) }
    var nodeCount: Int { max(0, (lower - Self.headerSize) / 2) }
    @inline(__always)
    func nodeOffset(_ index: Int) -> Int { u16(Self.headerSize + 2 * index) }

    /// The pages an overflow run needs for a value of `size` bytes (LMDB's `OVPAGES`).
    func overflowPagesNeeded(_ size: Int) -> Int { (Self.headerSize - 1 + size) / pageSize + 1 }

    static func load<Integer: FixedWidthInteger>(_: Integer.Type, _ bytes: [UInt8], _ offset: Int) -> Integer {
        bytes.withUnsafeBytes { load(Integer.self, $0, offset) }
    }

    static func load<Integer: FixedWidthInteger>(_: Integer.Type, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Integer {
        Integer(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }
}

/// One bit per page of the data file: a 1M-page (4 GB) file costs 128 KB.
struct PageBitmap {
    private(set) var words: [UInt64]

    init(pages: Int) { words = [UInt64](repeating: 0, count: (pages + 63) / 64) }

    /// Sets the page's bit; false when it was already set.
    mutating func insert(_ page: Int) -> Bool {
        let (word, bit) = (page / 64, UInt64(1) << UInt64(page % 64))
        if words[word] & bit != 0 { return false }
        words[word] |= bit
        return true
    }

    func contains(_ page: Int) -> Bool { words[page / 64] & (UInt64(1) << UInt64(page % 64)) != 0 }
}

/// An `MDB_db` record as the meta page or the main database holds it.
struct DatabaseRecord {
    static let invalidPage = UInt64.max
    static let duplicateSort: UInt16 = 0x04
    let flags: UInt16
    let depth: Int
    let branchPages: UInt64, leafPages: UInt64, overflowPages: UInt64, entries: UInt64
    let root: UInt64

    init(_ bytes: [UInt8], at offset: Int) {
        self = bytes.withUnsafeBytes { DatabaseRecord($0, at: offset) }
    }

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        flags = DataFilePage.load(UInt16.self, bytes, offset + 4)
        depth = Int(DataFilePage.load(UInt16.self, bytes, offset + 6))
        branchPages = DataFilePage.load(UInt64.self, bytes, offset + 8)
        leafPages = DataFilePage.load(UInt64.self, bytes, offset + 16)
        overflowPages = DataFilePage.load(UInt64.self, bytes, offset + 24)
        entries = DataFilePage.load(UInt64.self, bytes, offset + 32)
        root = DataFilePage.load(UInt64.self, bytes, offset + 40)
    }
}
