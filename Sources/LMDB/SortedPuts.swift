import CLMDB
import FlowLogSystem

/// Puts gathered for one database and written in key order through a single cursor.
///
/// A fresh `mdb_put` descends the B-tree from its root and, in a write transaction, looks every
/// page of the way up in the transaction's dirty-page list. A cursor that stays on its leaf page
/// when the next key falls on that page skips all of that, so sorting a batch's keys first (the
/// stream index of an import: a few versions of each of many streams) makes neighbours share the
/// descent. Keys sort as LMDB's default comparison does (bytes, then length).
public struct SortedPuts {
    private struct Entry {
        var start: Int
        var keyCount: Int
        var valueCount: Int
        /// The caller's label (a line number, say), returned for a put that `.noOverwrite` refused.
        var tag: Int
        var run: Int?
        /// The key's first eight bytes as a big-endian number (zero-padded): most comparisons end here.
        var prefix: UInt64
    }

    private var buffer = ByteBuffer()
    private var entries: [Entry] = []
    /// Whether `entries` (and their bytes) are in write order: `sort()` put them there, or they were
    /// added in it.
    private var inWriteOrder = true

    public init() {}

    /// Empty, with room for as many puts (and bytes) as `other` holds: a batch that is followed by
    /// batches like it then grows its buffers once, not by doubling each time (copying as it goes).
    public init(reservingLike other: SortedPuts) {
        entries.reserveCapacity(other.entries.count)
        buffer.reserveCapacity(other.buffer.count)
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }
    /// The bytes of the keys and values waiting.
    public var byteCount: Int { buffer.count }
    /// About how many leaf pages the waiting puts fill where they go after the database's last key:
    /// each takes its key and value and LMDB's 10 bytes (a node's header and its pointer) of a
    /// page's 4,080, and appended pages fill up but for the room a whole node would need (a
    /// tenth of a page for records of 300 bytes).
    public var appendedPages: Int { (buffer.count + entries.count * 10 + 3_799) / 3_800 }
    /// About how many leaf pages the waiting puts change where they go between the database's keys:
    /// a full page splits in halves, so such pages hold about 1,600 bytes of puts (a stream index
    /// written 175 versions a stream changed 5 pages a stream, its tail page and four).
    public var insertedPages: Int { (buffer.count + entries.count * 10 + 1_599) / 1_600 }

    /// How many puts of the last `write` went in other than by `MDB_APPEND`: each may have landed
    /// on a page of its own.
    public private(set) var insertedByLastWrite = 0
    /// Into how many gaps between the database's keys the writes asked to count them
    /// (`countingGaps`) put their keys, since these puts were made. Keys that fall into one gap go in
    /// side by side, on the same leaf page until it fills; keys in different gaps may each dirty a
    /// page of their own. A fold of new sessions (names one after the other) puts thousands of keys
    /// into a few gaps, one of sessions scattered over a grown index nearly one a gap. A write that
    /// goes on in the gap where the one before it ended counts it once.
    public var gapsCounted: Int { gapCount.gaps }
    private var gapCount = GapCount()

    /// Adds a put. A `run` (any number the caller picks, such as a stream's slot) promises that the
    /// run's keys are added in ascending order and that no other run's key falls between them, so
    /// sorting only has to order the runs; without one, each put is its own run.
    public mutating func add(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, tag: Int, run: Int? = nil) {
        entries.append(Entry(start: buffer.count, keyCount: key.count, valueCount: value.count, tag: tag, run: run, prefix: Self.prefix(of: key)))
        inWriteOrder = false
        buffer.append(key, value)
    }

    /// Writes every put in ascending key order (equal keys in the order added) and forgets them.
    ///
    /// With `.noOverwrite`, a refused put does not stop the others; the one with the smallest tag
    /// among the refused is returned, with its key. With `appending`, puts first try `MDB_APPEND`
    /// (no search at all) and fall back to an ordinary put where a key does not sort after the
    /// database's last (see `AppendAttempts`). With `countingGaps`, one more cursor step for
    /// each run's first put (and each put outside a run) counts the gaps between the database's keys
    /// that the puts fell into (`gapsCounted`).
    public mutating func write(
        to database: Database, in txn: Transaction, flags: Transaction.PutFlags = [],
        appending: Bool = false, countingGaps: Bool = false
    ) throws -> (tag: Int, key: [UInt8])? {
        defer {
            entries.removeAll(keepingCapacity: true)
            buffer.removeAll()
            inWriteOrder = true
        }
        sort()
        // The buffer stays as it is until the deferred reset, so these bytes stay valid.
        let bytes = buffer.bytes
        var cursorHandle: OpaquePointer?
        try check(mdb_cursor_open(txn.handle, database.dbi, &cursorHandle), "mdb_cursor_open")
        defer { mdb_cursor_close(cursorHandle) }
        var refused: Entry?
        var appends = AppendAttempts(enabled: appending)
        insertedByLastWrite = 0
        for entry in entries {
            var key = MDB_val(mv_size: entry.keyCount, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + entry.start))
            var value = MDB_val(
                mv_size: entry.valueCount,
                mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + entry.start + entry.keyCount))
            var code: Int32
            if appends.shouldTry() {
                code = mdb_cursor_put(cursorHandle, &key, &value, flags.rawValue | UInt32(MDB_APPEND))
                if code == MDB_KEYEXIST {
                    appends.refused()
                    insertedByLastWrite += 1
                    code = mdb_cursor_put(cursorHandle, &key, &value, flags.rawValue)
                }
            } else {
                insertedByLastWrite += 1
                code = mdb_cursor_put(cursorHandle, &key, &value, flags.rawValue)
            }
            if code == MDB_KEYEXIST, flags.contains(.noOverwrite) {
                if refused == nil || entry.tag < refused!.tag { refused = entry }
                continue
            }
            try check(code, "mdb_cursor_put")
            if countingGaps { gapCount.count(after: cursorHandle, run: entry.run) }
        }
        return refused.map { ($0.tag, Array(bytes[$0.start..<$0.start + $0.keyCount])) }
    }

    /// The gaps a write's puts fall into: after each put the cursor rests on the key just put, and
    /// the key after it is one the database held before (the puts come in key order), or none past
    /// its last. Puts followed by the same key share a gap. A run's later puts are taken to share
    /// its first's gap, unread: counting gaps, a run also promises that no key of the database
    /// falls between its keys (a stream's new versions, after every version the index holds).
    struct GapCount {
        private(set) var gaps = 0
        /// The key that followed the last put (`nil`: it was the database's last), once one was made.
        private var following: [UInt8]??
        private var lastRun: Int?

        mutating func count(after cursor: OpaquePointer?, run: Int?) {
            if let run, run == lastRun { return }
            lastRun = run
            var key = MDB_val()
            var value = MDB_val()
            let next: UnsafeRawBufferPointer? =
                mdb_cursor_get(cursor, &key, &value, MDB_NEXT) == MDB_SUCCESS
                ? UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size) : nil
            let same: Bool
            switch (following, next) {
            case (.some(.none), .none): same = true
            case (.some(.some(let earlier)), .some(let bytes)): same = earlier.elementsEqual(bytes)
            default: same = false
            }
            if !same {
                gaps += 1
                following = .some(next.map(Array.init))
            }
        }
    }

    /// When to try `MDB_APPEND`. A sorted batch of nearly sorted keys (time-ordered event ids, whose
    /// last milliseconds interleave with the database's newest) starts with keys that fall inside
    /// the database and goes on with keys past its end. After each refused append the next tries
    /// wait twice as long, so a batch that interleaves throughout wastes O(log n) refusals, and one
    /// that only starts inside the database goes back to appending soon after it leaves it.
    struct AppendAttempts {
        private let enabled: Bool
        private var skip = 0
        private var backoff = 1

        init(enabled: Bool) { self.enabled = enabled }

        mutating func shouldTry() -> Bool {
            guard enabled else { return false }
            if skip == 0 { return true }
            skip -= 1
            return false
        }

        mutating func refused() {
            skip = backoff
            backoff *= 2
        }
    }

    /// Puts the puts in write order now, so that `write` (on another thread, say) only writes.
    ///
    /// The entries and their bytes are moved, not just indexed: reading them in a scattered order
    /// on the writing thread cost a cache miss a put (they were written on another core), which
    /// made the nearly sorted event ids of an import twice as slow to write as its records.
    public mutating func sort() {
        guard !inWriteOrder else { return }
        inWriteOrder = true
        let bytes = buffer.bytes
        guard let order = sortedOrder(bytes) else { return }
        var moved = ByteBuffer(capacity: buffer.count)
        var ordered: [Entry] = []
        ordered.reserveCapacity(entries.count)
        for index in order {
            var entry = entries[index]
            let start = moved.count
            moved.append(UnsafeRawBufferPointer(rebasing: bytes[entry.start..<entry.start + entry.keyCount + entry.valueCount]))
            entry.start = start
            ordered.append(entry)
        }
        entries = ordered
        buffer = moved
    }

    /// The tags in the order `write` would put them (for tests).
    func tagsInWriteOrder() -> [Int] {
        var copy = self
        copy.sort()
        return copy.entries.map(\.tag)
    }

    /// The entries' indices by key, then by the order they were added; `nil` when that is the
    /// order they are in.
    private func sortedOrder(_ bytes: UnsafeRawBufferPointer) -> [Int]? {
        var sorted = true
        for index in entries.indices.dropFirst() where compare(entries[index - 1], entries[index], bytes) > 0 {
            sorted = false
            break
        }
        if sorted { return nil }
        if entries.allSatisfy({ $0.run != nil }) { return runOrder(bytes) }
        // By prefix with a radix sort (stable, so equal prefixes stay in the order added), then
        // each run of equal prefixes by the whole key. The prefix is read after the bytes every
        // key shares: streams named `session-N` all begin with the same eight bytes, which left
        // the whole batch to a comparison sort.
        let shared = sharedLength(bytes)
        let prefixes =
            shared == 0
            ? entries.map(\.prefix)
            : entries.map { Self.prefix(of: UnsafeRawBufferPointer(rebasing: bytes[$0.start + shared..<$0.start + $0.keyCount])) }
        var order = Self.radixSorted(prefixes: prefixes)
        var start = 0
        while start < order.count {
            var end = start + 1
            let prefix = prefixes[order[start]]
            while end < order.count, prefixes[order[end]] == prefix { end += 1 }
            if end - start > 1 {
                order[start..<end].sort { left, right in
                    let result = compare(entries[left], entries[right], bytes)
                    return result != 0 ? result < 0 : left < right
                }
            }
            start = end
        }
        return order
    }

    /// The indices of `prefixes` in ascending order of their values, equal values in index order:
    /// a least-significant-byte-first radix sort that skips every byte all the values share (the
    /// leading bytes of time-ordered ids in one batch), so a batch of event ids costs a few passes
    /// over two arrays instead of a comparison sort's dozen comparisons an id.
    public static func radixSorted(prefixes: [UInt64]) -> [Int] {
        var order = Array(prefixes.indices)
        var spare = order
        var counts = [Int](repeating: 0, count: 256)
        prefixes.withUnsafeBufferPointer { prefixes in
            counts.withUnsafeMutableBufferPointer { counts in
                for shift in stride(from: UInt64(0), to: 64, by: 8) {
                    counts.update(repeating: 0)
                    for prefix in prefixes { counts[Int(truncatingIfNeeded: prefix &>> shift) & 0xFF] &+= 1 }
                    // A byte every value shares orders nothing.
                    if counts.contains(prefixes.count) { continue }
                    var total = 0
                    for bucket in 0..<256 {
                        let count = counts[bucket]
                        counts[bucket] = total
                        total &+= count
                    }
                    order.withUnsafeBufferPointer { from in
                        spare.withUnsafeMutableBufferPointer { to in
                            for index in from {
                                let bucket = Int(truncatingIfNeeded: prefixes[index] &>> shift) & 0xFF
                                to[counts[bucket]] = index
                                counts[bucket] &+= 1
                            }
                        }
                    }
                    swap(&order, &spare)
                }
            }
        }
        return order
    }

    /// Orders the runs by their first keys, each keeping the order it was added in: a counting sort
    /// by run, so a batch of many runs allocates nothing per run.
    private func runOrder(_ bytes: UnsafeRawBufferPointer) -> [Int] {
        var firstEntry: [Int] = []
        var memberCount: [Int] = []
        var runOfEntry = [Int](repeating: 0, count: entries.count)
        func newRun(startingAt index: Int) -> Int {
            firstEntry.append(index)
            memberCount.append(0)
            return firstEntry.count - 1
        }
        // Runs numbered from zero (an import's stream slots) are looked up in an array; any other
        // numbering in a dictionary.
        let largestRun = entries.reduce(0) { max($0, $1.run!) }
        let small = entries.allSatisfy({ $0.run! >= 0 }) && largestRun < 4 * entries.count + 1_024
        var smallIds = [Int](repeating: -1, count: small ? largestRun + 1 : 0)
        var otherIds: [Int: Int] = [:]
        for index in entries.indices {
            let run = entries[index].run!
            var id = small ? smallIds[run] : otherIds[run] ?? -1
            if id < 0 {
                id = newRun(startingAt: index)
                if small { smallIds[run] = id } else { otherIds[run] = id }
            }
            runOfEntry[index] = id
            memberCount[id] += 1
        }
        let runs = firstEntry.indices.sorted { compare(entries[firstEntry[$0]], entries[firstEntry[$1]], bytes) < 0 }
        var next = [Int](repeating: 0, count: runs.count)
        var offset = 0
        for run in runs {
            next[run] = offset
            offset += memberCount[run]
        }
        var order = [Int](repeating: 0, count: entries.count)
        for index in entries.indices {
            order[next[runOfEntry[index]]] = index
            next[runOfEntry[index]] += 1
        }
        return order
    }

    /// The first eight bytes of `key` as a big-endian number, zero-padded.
    private static func prefix(of key: UnsafeRawBufferPointer) -> UInt64 {
        if key.count >= 8 { return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) }
        var prefix: UInt64 = 0
        for index in 0..<8 { prefix = prefix << 8 | UInt64(index < key.count ? key[index] : 0) }
        return prefix
    }

    /// How many leading bytes every key shares (at most the shortest key's length).
    private func sharedLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let first = entries.first else { return 0 }
        var shared = first.keyCount
        for entry in entries.dropFirst() {
            shared = min(shared, entry.keyCount)
            var index = 0
            while index < shared, bytes[first.start + index] == bytes[entry.start + index] { index += 1 }
            shared = index
            if shared == 0 { break }
        }
        return shared
    }

    private func compare(_ left: Entry, _ right: Entry, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        if left.prefix != right.prefix { return left.prefix < right.prefix ? -1 : 1 }
        let shared = min(left.keyCount, right.keyCount)
        let result = memcmp(bytes.baseAddress! + left.start, bytes.baseAddress! + right.start, shared)
        if result != 0 { return result }
        return left.keyCount == right.keyCount ? 0 : left.keyCount < right.keyCount ? -1 : 1
    }
}
