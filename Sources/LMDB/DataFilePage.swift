import FlowLogSystem

/// One page of an LMDB data file at a time, read through a read-only map of the file of the
/// walk's own, for the structure walk (`StructureWalk`).
///
/// The walk reads the file, never through LMDB: a damaged page must be looked at byte by byte
/// without LMDB following its pointers (which is what the walk is there to check). A map of its
/// own costs no copy and no system call per page, where a `pread` per page cost both; every read is checked against the page before it is made, and
/// pages are only read up to the last one the meta page names, which the file holds (checked here
/// and by `Environment` at opening; the file only grows), so no read faults.
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

    let pageSize: Int
    /// The map of the file's first `length` bytes.
    private let base: UnsafeRawPointer
    let length: Int
    /// The offset of the page read last.
    private var current = 0

    /// The file at `path` with the page size its first meta page names; `nil` when it cannot be
    /// opened or mapped, or names no page size LMDB uses (`Environment` refuses such a file first).
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 48)
        var file = stat()
        let size = pread(descriptor, &header, 48, 0) == 48 ? Int(Self.load(UInt32.self, header, 40)) : 0
        guard size >= 512, size <= 65536, size & (size - 1) == 0, fstat(descriptor, &file) == 0, Int(file.st_size) >= 2 * size,
              let map = mmap(nil, Int(file.st_size), PROT_READ, MAP_SHARED, descriptor, 0), map != MAP_FAILED else { return nil }
        self.pageSize = size
        self.base = UnsafeRawPointer(map)
        self.length = Int(file.st_size)
    }

    func release() { munmap(UnsafeMutableRawPointer(mutating: base), length) }

    /// Makes page `number` the one read; false when the file does not hold it whole.
    mutating func read(_ number: Int) -> Bool {
        guard number >= 0, number < length / pageSize else { return false }
        current = number * pageSize
        return true
    }

    /// `count` bytes from `offset` in the file, for a meta page or a value in an overflow run.
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, count <= length - offset else { return nil }
        return Array(UnsafeRawBufferPointer(start: base + offset, count: count))
    }

    /// `count` bytes from `offset` in the page read last, which the caller has checked it holds.
    func bytes(_ offset: Int, count: Int) -> [UInt8] { Array(UnsafeRawBufferPointer(start: base + current + offset, count: count)) }

    func u16(_ offset: Int) -> Int { Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: current + offset, as: UInt16.self))) }
    func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: current + offset, as: UInt64.self)) }

    var number: UInt64 { u64(0) }
    var flags: UInt16 { UInt16(u16(10)) }
    var lower: Int { u16(12) }
    var upper: Int { u16(14) }
    /// An overflow run's first page: how many pages the run holds.
    var overflowPages: Int { Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: current + 12, as: UInt32.self))) }
    var nodeCount: Int { max(0, (lower - Self.headerSize) / 2) }
    func nodeOffset(_ index: Int) -> Int { u16(Self.headerSize + 2 * index) }

    /// The pages an overflow run needs for a value of `size` bytes (LMDB's `OVPAGES`).
    func overflowPagesNeeded(_ size: Int) -> Int { (Self.headerSize - 1 + size) / pageSize + 1 }

    static func load<Integer: FixedWidthInteger>(_: Integer.Type, _ bytes: [UInt8], _ offset: Int) -> Integer {
        bytes.withUnsafeBytes { Integer(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Integer.self)) }
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
        flags = DataFilePage.load(UInt16.self, bytes, offset + 4)
        depth = Int(DataFilePage.load(UInt16.self, bytes, offset + 6))
        branchPages = DataFilePage.load(UInt64.self, bytes, offset + 8)
        leafPages = DataFilePage.load(UInt64.self, bytes, offset + 16)
        overflowPages = DataFilePage.load(UInt64.self, bytes, offset + 24)
        entries = DataFilePage.load(UInt64.self, bytes, offset + 32)
        root = DataFilePage.load(UInt64.self, bytes, offset + 40)
    }
}
