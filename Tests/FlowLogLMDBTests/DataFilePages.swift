/// The pages of an LMDB data file as the tests of damaged files need them, read from its bytes
/// with no LMDB code: which database each page of the newest meta page's trees belongs to, and
/// which bytes are a record of `events` (its node: header, key and value, or its overflow pages).
/// LMDB 0.9's layout on a 64-bit machine: a 16-byte page header (number, pad, flags, lower and
/// upper bounds), nodes of an 8-byte header (data size low and high, flags, key size), then key
/// and data; meta pages 0 and 1 with the free and main databases' roots and the last page.
struct DataFilePages {
    let bytes: [UInt8]
    let pageSize: Int
    /// Pages 0 through the last page the newest meta page names.
    let usedPages: Int
    /// Each page reached from the newest meta page: its database and flags.
    private(set) var pages: [Int: (database: String, flags: UInt16)] = [:]
    /// The bits of `events` records, by byte: their nodes' sizes, flags LMDB reads and keys, their
    /// values (inline or in overflow pages), and their leaves' node counts and node offsets.
    private(set) var recordBits: [Int: UInt8] = [:]

    init(_ bytes: [UInt8], pageSize: Int) {
        self.bytes = bytes
        self.pageSize = pageSize
        let newest = [0, 1].max { Self.load(UInt64.self, bytes, $0 * pageSize + 144) < Self.load(UInt64.self, bytes, $1 * pageSize + 144) }!
        usedPages = Int(Self.load(UInt64.self, bytes, newest * pageSize + 136)) + 1
        pages[0] = ("(meta)", 0x08)
        pages[1] = ("(meta)", 0x08)
        walk(Int(Self.load(UInt64.self, bytes, newest * pageSize + 128)), database: "(main)")
    }

    /// The leaf pages of `database`.
    func leaves(of database: String) -> [Int] {
        pages.filter { $0.value.database == database && $0.value.flags & 0x02 != 0 }.map(\.key).sorted()
    }

    func isRecordBit(_ offset: Int, _ bit: Int) -> Bool { (recordBits[offset] ?? 0) & (1 << bit) != 0 }

    private mutating func mark(_ range: Range<Int>, _ mask: UInt8 = 0xFF) {
        for offset in range { recordBits[offset] = mask }
    }

    /// A node's header, key and `size` bytes of data at `data`. Of its flags a cursor in a database
    /// without duplicates reads two bits, big data (0x01) and duplicates (0x04); the subdatabase bit
    /// (0x02) matters only in the main database.
    private mutating func markNode(_ node: Int, data: Int, size: Int) {
        mark(node..<(node + 4))
        mark((node + 4)..<(node + 5), 0x05)
        mark((node + 6)..<(data + size))
    }

    private mutating func walk(_ page: Int, database: String) {
        guard page < usedPages, pages[page] == nil else { return }
        let start = page * pageSize
        let flags = Self.load(UInt16.self, bytes, start + 10)
        pages[page] = (database, flags)
        if flags & 0x04 != 0 { return }
        let count = (Int(Self.load(UInt16.self, bytes, start + 12)) - 16) / 2
        for index in 0..<count {
            let node = start + Int(Self.load(UInt16.self, bytes, start + 16 + 2 * index))
            let (low, high, nodeFlags, keySize) = (
                Int(Self.load(UInt16.self, bytes, node)), Int(Self.load(UInt16.self, bytes, node + 2)),
                Self.load(UInt16.self, bytes, node + 4), Int(Self.load(UInt16.self, bytes, node + 6))
            )
            if flags & 0x01 != 0 {
                walk(low | high << 16 | Int(nodeFlags) << 32, database: database)
                continue
            }
            let data = node + 8 + keySize
            let size = low | high << 16
            if nodeFlags & 0x02 != 0 {
                let root = Self.load(UInt64.self, bytes, data + 40)
                let name = String(decoding: bytes[(node + 8)..<data], as: UTF8.self)
                if root != .max { walk(Int(root), database: name) }
            } else if nodeFlags & 0x01 != 0 {
                let overflow = Int(Self.load(UInt64.self, bytes, data))
                let count = Int(Self.load(UInt32.self, bytes, overflow * pageSize + 12))
                for page in overflow..<(overflow + count) { pages[page] = (database, 0x04) }
                if database == "events" {
                    markNode(node, data: data, size: 8)
                    mark((overflow * pageSize + 16)..<(overflow * pageSize + 16 + size))
                }
            } else if database == "events" {
                markNode(node, data: data, size: size)
            }
        }
        if database == "events", flags & 0x02 != 0 {
            // The page's lower bound (how many nodes) and its node offsets say where its records are.
            mark((start + 12)..<(start + 14))
            mark((start + 16)..<(start + 16 + 2 * count))
        }
    }

    static func load<Integer: FixedWidthInteger>(_: Integer.Type, _ bytes: [UInt8], _ offset: Int) -> Integer {
        bytes.withUnsafeBytes { Integer(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Integer.self)) }
    }
}
