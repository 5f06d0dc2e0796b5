import FlowLogSystem

/// One page of an LMDB data file at a time, read with `pread` into one buffer, for the structure
/// walk (`StructureWalk`).
///
/// The walk reads the file, never LMDB's map: a damaged page must be looked at byte by byte without
/// LMDB following its pointers (which is what the walk is there to check), and one buffer keeps
/// the memory the walk needs at one page, whatever the size of the log.
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
    private(set) var bytes: [UInt8]

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
        self.bytes = [UInt8](repeating: 0, count: size)
    }

    func release() { close(descriptor) }

    /// Reads page `number` into the buffer; false when the file does not hold it whole.
    mutating func read(_ number: Int) -> Bool {
        let (offset, overflow) = number.multipliedReportingOverflow(by: pageSize)
        guard !overflow else { return false }
        let size = pageSize
        return bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, off_t(offset)) } == size
    }

    /// `count` bytes from `offset` in the file, for a value in an overflow run.
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: count)
        return result.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, count, off_t(offset)) }) == count ? result : nil
    }

    func u16(_ offset: Int) -> Int { Int(Self.load(UInt16.self, bytes, offset)) }
    func u64(_ offset: Int) -> UInt64 { Self.load(UInt64.self, bytes, offset) }

    var number: UInt64 { u64(0) }
    var flags: UInt16 { Self.load(UInt16.self, bytes, 10) }
    var lower: Int { u16(12) }
    var upper: Int { u16(14) }
    /// An overflow run's first page: how many pages the run holds.
    var overflowPages: Int { Int(Self.load(UInt32.self, bytes, 12)) }
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
