/// The leaves of the structure walk: their nodes, the overflow runs they name, the databases the
/// main database names, and the free list, which accounts for every page no tree reaches.
extension StructureWalk {
    /// Checks each node of the leaf in the buffer, lists the databases the main database names and
    /// marks the pages the free list's records list; leaves in `runs` the overflow runs its nodes
    /// name, which the caller visits once the buffer is no longer needed.
    ///
    /// Nearly every node is a key and its value, whole in the page: those are checked here, a few
    /// comparisons each; any other node (flagged, the free list's, or one that fails a check) is
    /// looked at again by `readNode`, which names what is wrong.
    mutating func readLeaf(_ page: Int, _ tree: inout Tree) {
        if !runs.isEmpty { runs.removeAll(keepingCapacity: true) }
        var filled = 0
        var nodesWhole = true
        let size = file.pageSize
        let upper = file.upper
        let plain = !tree.isFreeList
        for index in 0..<file.nodeCount {
            let node = file.nodeOffset(index)
            if plain, node >= upper, node + DataFilePage.nodeHeaderSize <= size, file.u16(node + 4) == 0 {
                let keySize = file.u16(node + 6)
                let dataSize = file.u16(node) | file.u16(node + 2) << 16
                let whole = DataFilePage.nodeHeaderSize + keySize + dataSize
                if node + whole <= size {
                    filled += Self.even(whole)
                    continue
                }
            }
            guard let nodeFills = readNode(page, index, &tree) else {
                nodesWhole = false
                continue
            }
            filled += nodeFills
        }
        if nodesWhole, tree.countable, !checkFilled(page, filled, &tree) { runs.removeAll(keepingCapacity: true) }
    }

    /// Node `index` of the leaf in the buffer, checked in full: the bytes it fills, or nil (and a
    /// problem named) when it does not lie whole in the page.
    @inline(never)
    mutating func readNode(_ page: Int, _ index: Int, _ tree: inout Tree) -> Int? {
        guard let node = checkNode(page, index, &tree) else { return nil }
        let flags = UInt16(file.u16(node + 4))
        let keySize = file.u16(node + 6)
        let size = file.u16(node) | file.u16(node + 2) << 16
        let data = node + DataFilePage.nodeHeaderSize + keySize
        let fills = Self.even(DataFilePage.nodeHeaderSize + keySize + (flags & DataFilePage.bigData != 0 ? 8 : size))
        if flags & DataFilePage.bigData != 0 {
            guard data + 8 <= file.pageSize else {
                problem(page, &tree, "node \(index)'s overflow page number runs past the end of the page")
                return nil
            }
            runs.append((Int(clamping: file.u64(data)), size))
            return fills
        }
        guard data + size <= file.pageSize else {
            problem(page, &tree, "node \(index)'s \(size) bytes of data run past the end of the page")
            return nil
        }
        if flags & DataFilePage.dupData != 0 {
            // FlowLog opens no database with duplicates; one that has them is walked, not counted.
            if tree.record.flags & DatabaseRecord.duplicateSort == 0 {
                problem(page, &tree, "node \(index) is marked as holding duplicates, in a database that has none")
            } else {
                tree.countable = false
            }
            return fills
        }
        if tree.isFreeList {
            markFree(file.page, from: data, size: size, page: page, &tree)
        } else if tree.isMain, flags & DataFilePage.subData != 0 {
            guard size == DataFilePage.databaseRecordSize else {
                problem(page, &tree, "node \(index) names a database with a record of \(size) bytes, not \(DataFilePage.databaseRecordSize)")
                return fills
            }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: file.page[(node + DataFilePage.nodeHeaderSize)..<data]), as: UTF8.self)
            namedDatabases.append((name, DatabaseRecord(file.page, at: data), page))
        }
        return fills
    }

    /// An overflow run: its first page's number and flags, a length that holds the value (LMDB may
    /// leave a longer run when it overwrote a value with a shorter one in place, never a shorter
    /// run), and each of its pages reached once.
    mutating func visitOverflow(_ first: Int, size: Int, parent: Int, _ tree: inout Tree) {
        guard reach(first, from: parent, &tree, what: "a leaf node's value") else { return }
        guard file.read(first) else {
            problem(first, &tree, "cannot be read from the file")
            return
        }
        guard file.number == UInt64(first) else {
            problem(first, &tree, "its header names page \(file.number), not \(first)")
            return
        }
        guard file.flags & DataFilePage.roles == DataFilePage.overflow else {
            problem(
                first, &tree,
                "its flags (0x\(String(file.flags, radix: 16))) are not those of the overflow page a leaf node names (from page \(parent))")
            return
        }
        let count = file.overflowPages
        let needed = file.overflowPagesNeeded(size)
        guard count >= needed else {
            problem(first, &tree, "its overflow run holds \(count) pages, where the value of \(size) bytes needs \(needed)")
            return
        }
        guard count - 1 <= lastPage - first else {
            problem(first, &tree, "its overflow run of \(count) pages runs past the last page \(lastPage)")
            return
        }
        tree.overflowPages += UInt64(count)
        for page in (first + 1)..<(first + count) {
            guard reach(page, from: first, &tree, what: "an overflow run") else { return }
        }
        if tree.isFreeList {
            guard let value = file.bytes(at: first * file.pageSize + DataFilePage.headerSize, count: size) else {
                problem(first, &tree, "its overflow run cannot be read from the file")
                freeListComplete = false
                return
            }
            value.withUnsafeBytes { markFree($0, from: 0, size: size, page: first, &tree) }
        }
    }

    /// A record of the free list: a count, then that many page numbers, each freed by the
    /// transaction its key names and no longer in any tree of this or a later commit.
    mutating func markFree(_ bytes: UnsafeRawBufferPointer, from start: Int, size: Int, page: Int, _ tree: inout Tree) {
        let count = size >= 8 ? DataFilePage.load(UInt64.self, bytes, start) : .max
        guard count <= UInt64(size / 8 - 1) else {
            problem(page, &tree, "a record of the free list of \(size) bytes says it lists \(count == .max ? "no" : "\(count)") pages")
            freeListComplete = false
            return
        }
        for index in 0..<Int(count) {
            let listed = DataFilePage.load(UInt64.self, bytes, start + 8 + 8 * index)
            guard listed >= 2, listed <= UInt64(lastPage) else {
                problem(
                    page, &tree, "a record of the free list names page \(listed), \(listed < 2 ? "a meta page" : "past the last page \(lastPage)")")
                freeListComplete = false
                continue
            }
            _ = free.insert(Int(listed))
        }
    }

    /// The free list's own pages that it also lists as free: a page is one or the other.
    mutating func checkReachedFreePages() {
        for (word, bits) in zip(reached.words, free.words).map({ $0 & $1 }).enumerated() where bits != 0 {
            for bit in 0..<64 where bits & (1 << UInt64(bit)) != 0 {
                note(word * 64 + bit, "(free)", "is a page of the free list's tree, but also listed as free")
            }
        }
    }

    /// After a walk that found nothing else: every page up to the last one the meta page names is
    /// either in a tree or listed free (LMDB's own audit, `mdb_audit`, checks the same sum at each
    /// commit in its debug builds). Pages that are neither are what a root naming an older commit's
    /// tree leaves behind: the newer tree's pages, reached by nothing.
    mutating func accountForFreePages() {
        guard problems.isEmpty, freeListComplete else { return }
        var unaccounted = 0
        var firstUnaccounted = 0
        for (word, (inTree, listed)) in zip(reached.words, free.words).enumerated() {
            var bits = ~(inTree | listed)
            if word == reached.words.count - 1, (lastPage + 1) % 64 != 0 { bits &= (UInt64(1) << UInt64((lastPage + 1) % 64)) - 1 }
            if bits != 0, unaccounted == 0 { firstUnaccounted = word * 64 + bits.trailingZeroBitCount }
            unaccounted += bits.nonzeroBitCount
        }
        guard unaccounted > 0 else { return }
        note(
            firstUnaccounted, "(no database)",
            """
            is in no database's tree and not listed as free\(unaccounted > 1 ? ", nor are \(unaccounted - 1) other pages" : ""): \
            a database's root may name an older commit's tree, or a branch node another page
            """)
    }
}

extension Environment {
    /// The structure walk of this environment's data file (`StructureWalk`), from the snapshot of
    /// a read transaction held for the walk's length, so that no writer reuses the pages it reads.
    public func walkStructure() throws -> [PageProblem] { try structureWalk()?.problems ?? [] }

    /// The structure walk from the snapshot of `txn`, a read transaction the caller holds, with the
    /// leaves walks of records in it found whole (`PageScans`) not read again.
    public func walkStructure(in txn: Transaction, scans: PageScans?) throws -> [PageProblem] {
        if txn.isReadOnly, let walk = StructureWalk.walk(file: path + "/data.mdb", snapshot: txn.snapshotID, map: txn.bounds, scans: scans) {
            return walk.problems
        }
        return try walkStructure()
    }

    func structureWalk() throws -> StructureWalk? {
        for _ in 0..<8 {
            if let walk = try read({ txn in StructureWalk.walk(file: path + "/data.mdb", snapshot: txn.snapshotID, map: txn.bounds) }) {
                return walk
            }
        }
        // A writer commits faster than a walk begins: walk the newest commit, unprotected.
        return StructureWalk.walk(file: path + "/data.mdb", snapshot: nil)
    }
}
