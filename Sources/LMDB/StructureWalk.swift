/// A damaged page of an LMDB data file, named by its number and the database whose tree reached it.
public struct PageProblem: Sendable, Equatable, CustomStringConvertible {
    public let page: Int
    /// A named database, `(main)`, `(free)` (LMDB's free list), or `(no database)`.
    public let database: String
    public let detail: String

    public var description: String { "page \(page) of \(database): \(detail)" }
}

/// Walks every page of every database reachable from a meta page of an LMDB data file, from the
/// file's bytes, and names each page that is not what the tree above it says it is.
///
/// LMDB keeps no checksums and trusts its pages: a flipped bit in a branch node sends a lookup to
/// another page, and a record that lives on it is never read by the walk of the hash chain, or read
/// from the wrong place. This walk checks what LMDB takes on trust — each page number in range, the
/// page's own number, its flags against its place in the tree (branch above the database's depth,
/// leaf at it), its free-space bounds and its nodes inside the page, each overflow run's length,
/// no page reached twice, and each database's record (depth, page counts, entries) against its
/// tree — and then accounts for every page of the file (`accountForFreePages`). A bad page's
/// subtree is skipped and the walk goes on with the rest, so every damaged page it can reach is
/// named. It reads one page at a time and keeps one bit per page (`PageBitmap`); it allocates
/// nothing per page (a walk of a 1M-event log reads some 40,000 pages, and what it did per page
/// once made it a fifth of `verify`'s time).
public struct StructureWalk {
    /// Problems beyond this many are not kept: heavy damage is named well enough by the first.
    static let maximumProblems = 1000

    public private(set) var problems: [PageProblem] = []
    /// Pages reached from the meta page, meta pages included.
    public private(set) var pagesReached = 2
    /// Whether its pages came from LMDB's map rather than the file (`DataFilePage`).
    var readLMDBMap: Bool { file.readsMap }
    var file: DataFilePage
    let lastPage: Int
    let metaPage: Int
    var reached: PageBitmap
    var free: PageBitmap
    /// Whether the free list is wholly read: only then are pages neither reached nor free damage.
    var freeListComplete = true
    /// The databases the main database's leaves name, walked after it.
    var namedDatabases: [(name: String, record: DatabaseRecord, page: Int)] = []
    /// The overflow runs of the leaf just read, visited once its nodes are checked: one array for
    /// the whole walk.
    var runs: [(page: Int, size: Int)] = []

    /// A database being walked: what its record says, and what its tree holds so far.
    struct Tree {
        let name: String
        let record: DatabaseRecord
        /// The page holding the record: a meta page, or a leaf of the main database.
        let recordPage: Int
        var branchPages: UInt64 = 0, leafPages: UInt64 = 0, overflowPages: UInt64 = 0, entries: UInt64 = 0
        var problems = 0
        /// False for a database with duplicates, whose sub-pages the walk does not count.
        var countable = true
        /// Asked of every node: known once, not by comparing names.
        let isFreeList: Bool
        let isMain: Bool

        init(name: String, record: DatabaseRecord, recordPage: Int) {
            self.name = name
            self.record = record
            self.recordPage = recordPage
            isFreeList = name == "(free)"
            isMain = name == "(main)"
        }
    }

    /// The walk of the data file at `path` from the meta page of transaction `snapshot` (the one a
    /// read transaction the caller holds sees, so a writer reuses none of its pages meanwhile), or
    /// of the newer meta page when `snapshot` is nil. `nil` when neither meta page names
    /// `snapshot` (a writer committed twice since the caller's transaction began: try again), or
    /// the file cannot be read as LMDB's. `map`, a read transaction's bounds, lets the walk copy
    /// pages from LMDB's map instead of reading them from the file (`DataFilePage`).
    public static func walk(file path: String, snapshot: Int?) -> StructureWalk? { walk(file: path, snapshot: snapshot, map: nil) }

    static func walk(file path: String, snapshot: Int?, map: MapBounds?, scans: PageScans? = nil) -> StructureWalk? {
        guard var file = DataFilePage(path: path) else { return nil }
        defer { file.release() }
        let metas = [0, 1].compactMap { page -> (page: Int, bytes: [UInt8])? in
            file.bytes(at: page * file.pageSize, count: 152).map { (page, $0) }
        }
        guard metas.count == 2 else { return nil }
        let txnid = { (meta: [UInt8]) in DataFilePage.load(UInt64.self, meta, 144) }
        let chosen =
            snapshot.map { id in metas.first { txnid($0.bytes) == UInt64(id) } }
            ?? metas.max { txnid($0.bytes) < txnid($1.bytes) }
        // The meta page read again, unchanged: no writer was writing it as it was read.
        guard let meta = chosen, file.bytes(at: meta.page * file.pageSize, count: 152) == meta.bytes else { return nil }
        let lastPage = Int(clamping: DataFilePage.load(UInt64.self, meta.bytes, 136))
        guard lastPage >= 1, lastPage < Int.max / file.pageSize else { return nil }
        if let map { file.useMap(map, metas: metas.map(\.bytes), scans: scans.flatMap { $0.snapshot == snapshot ? $0 : nil }) }
        var walk = StructureWalk(file: file, lastPage: lastPage, metaPage: meta.page)
        walk.walkAll(free: DatabaseRecord(meta.bytes, at: 40), main: DatabaseRecord(meta.bytes, at: 88))
        return walk
    }

    private init(file: DataFilePage, lastPage: Int, metaPage: Int) {
        self.file = file
        self.lastPage = lastPage
        self.metaPage = metaPage
        reached = PageBitmap(pages: lastPage + 1)
        free = PageBitmap(pages: lastPage + 1)
        _ = reached.insert(0)
        _ = reached.insert(1)
    }

    /// The free list first (so every later page can be checked against it), then the main
    /// database, then each database the main one names.
    private mutating func walkAll(free freeRecord: DatabaseRecord, main mainRecord: DatabaseRecord) {
        var freeTree = Tree(name: "(free)", record: freeRecord, recordPage: metaPage)
        walkTree(&freeTree)
        checkReachedFreePages()
        var mainTree = Tree(name: "(main)", record: mainRecord, recordPage: metaPage)
        walkTree(&mainTree)
        for database in namedDatabases {
            var tree = Tree(name: database.name, record: database.record, recordPage: database.page)
            walkTree(&tree)
        }
        accountForFreePages()
    }

    mutating func note(_ page: Int, _ database: String, _ detail: String) {
        guard problems.count < Self.maximumProblems else { return }
        problems.append(PageProblem(page: page, database: database, detail: detail))
    }

    private mutating func walkTree(_ tree: inout Tree) {
        let record = tree.record
        if record.root == DatabaseRecord.invalidPage {
            if record.depth != 0 || record.branchPages != 0 || record.leafPages != 0 || record.overflowPages != 0 || record.entries != 0 {
                note(tree.recordPage, tree.name, "the database's record names no root page, yet counts \(record.entries) entries")
            }
            return
        }
        guard record.depth >= 1, record.depth <= 32 else {
            note(tree.recordPage, tree.name, "the database's record says its tree is \(record.depth) pages deep")
            return
        }
        visit(Int(clamping: record.root), level: 1, parent: tree.recordPage, &tree)
        guard tree.problems == 0, tree.countable else { return }
        let found = (tree.branchPages, tree.leafPages, tree.overflowPages, tree.entries)
        if found != (record.branchPages, record.leafPages, record.overflowPages, record.entries) {
            note(
                tree.recordPage, tree.name,
                """
                the database's record counts \(record.branchPages) branch, \(record.leafPages) leaf and \(record.overflowPages) overflow pages \
                and \(record.entries) entries; its tree holds \(found.0), \(found.1), \(found.2) and \(found.3)
                """)
        }
    }

    mutating func problem(_ page: Int, _ tree: inout Tree, _ detail: String) {
        tree.problems += 1
        note(page, tree.name, detail)
    }

    /// Marks `page` reached for `tree`; false (and a problem named) when it is out of range or was
    /// reached before.
    mutating func reach(_ page: Int, from parent: Int, _ tree: inout Tree, what: String) -> Bool {
        guard page >= 2, page <= lastPage else {
            problem(parent, &tree, "\(what) names page \(page), \(page < 2 ? "a meta page" : "past the last page \(lastPage)")")
            return false
        }
        guard reached.insert(page) else {
            problem(page, &tree, "is reached a second time (from page \(parent))")
            return false
        }
        pagesReached += 1
        if !tree.isFreeList, free.contains(page) {
            problem(page, &tree, "is in the tree (reached from page \(parent)) but also listed as free")
        }
        return true
    }

    private mutating func visit(_ page: Int, level: Int, parent: Int, _ tree: inout Tree) {
        guard reach(page, from: parent, &tree, what: level == 1 ? "the database's record" : "a branch node"),
            checkHeader(page, level: level, &tree)
        else { return }
        if file.flags & DataFilePage.roles == DataFilePage.branch {
            tree.branchPages += 1
            var children: [Int] = []
            children.reserveCapacity(file.nodeCount)
            var filled = 0
            for index in 0..<file.nodeCount {
                guard let node = checkNode(page, index, &tree) else { continue }
                let low = UInt64(file.u16(node))
                let high = UInt64(file.u16(node + 2))
                let top = UInt64(file.u16(node + 4))
                children.append(Int(clamping: low | high << 16 | top << 32))
                filled += Self.even(DataFilePage.nodeHeaderSize + file.u16(node + 6))
            }
            guard checkFilled(page, filled, &tree) else { return }
            for child in children { visit(child, level: level + 1, parent: page, &tree) }
        } else {
            tree.leafPages += 1
            tree.entries += UInt64(file.nodeCount)
            if let filled = file.plainLeafFilled {
                // Every node plain and whole (checked as `readLeaf` checks them): only their sum is left.
                if tree.countable { _ = checkFilled(page, filled, &tree) }
                return
            }
            readLeaf(page, &tree)
            guard !runs.isEmpty else { return }
            // Visiting a run reads its page into the buffer and leaves `runs` as it is.
            for index in runs.indices { visitOverflow(runs[index].page, size: runs[index].size, parent: page, &tree) }
        }
    }

    /// The page's own number, flags and bounds; false (and a problem named) when its nodes cannot
    /// be trusted.
    private mutating func checkHeader(_ page: Int, level: Int, _ tree: inout Tree) -> Bool {
        // The free list's leaves list pages: the walk reads their nodes' values.
        guard file.read(page, wholePage: tree.isFreeList) else {
            problem(page, &tree, "cannot be read from the file")
            return false
        }
        guard file.number == UInt64(page) else {
            problem(page, &tree, "its header names page \(file.number), not \(page)")
            return false
        }
        let role = file.flags & DataFilePage.roles
        let depth = tree.record.depth
        guard role == DataFilePage.branch || role == DataFilePage.leaf else {
            problem(
                page, &tree, "its flags (0x\(String(file.flags, radix: 16))) are not those of a branch or leaf page, at depth \(level) of \(depth)")
            return false
        }
        if role == DataFilePage.branch, level >= depth {
            problem(page, &tree, "is a branch page at depth \(level), where the database's record puts its leaves at depth \(depth)")
            return false
        }
        if role == DataFilePage.leaf, level != depth {
            problem(page, &tree, "is a leaf page at depth \(level), where the database's record puts its leaves at depth \(depth)")
        }
        guard file.lower >= DataFilePage.headerSize, file.lower % 2 == 0, file.lower <= file.upper, file.upper <= file.pageSize else {
            problem(page, &tree, "its free space runs from byte \(file.lower) to byte \(file.upper), which no page of \(file.pageSize) bytes holds")
            return false
        }
        if role == DataFilePage.branch, file.nodeCount == 0 {
            problem(page, &tree, "is a branch page with no nodes")
            return false
        }
        return true
    }

    /// LMDB packs a page's nodes from its end down to its upper bound, each an even number of bytes
    /// (`mdb_node_add`, `mdb_node_del`): together they fill those bytes exactly. A flipped bit in
    /// either bound, or a node's key size, leaves a gap or an overlap.
    mutating func checkFilled(_ page: Int, _ filled: Int, _ tree: inout Tree) -> Bool {
        guard filled == file.pageSize - file.upper else {
            problem(
                page, &tree,
                "its \(file.nodeCount) nodes fill \(filled) bytes, where the page's upper bound leaves \(file.pageSize - file.upper) for them")
            return false
        }
        return true
    }

    static func even(_ size: Int) -> Int { (size + 1) & ~1 }

    /// The offset of node `index` when its header and key lie in the page, past its free space; nil
    /// (and a problem named) otherwise.
    @inline(__always)
    mutating func checkNode(_ page: Int, _ index: Int, _ tree: inout Tree) -> Int? {
        let node = file.nodeOffset(index)
        let size = file.pageSize
        guard node >= file.upper, node + DataFilePage.nodeHeaderSize <= size,
            node + DataFilePage.nodeHeaderSize + file.u16(node + 6) <= size
        else {
            problem(page, &tree, "node \(index) at byte \(node) does not lie in the page's nodes (bytes \(file.upper) to \(size))")
            return nil
        }
        return node
    }
}
