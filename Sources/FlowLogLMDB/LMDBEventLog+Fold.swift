import FlowLogBasics
import Foundation
import LMDB

/// When a schema-4 log's pending batch records (`BatchRecord`) are folded into `streamIndex` and
/// `orders`/`orderPages`.
///
/// A commit writes one batch record instead of the tail pages of every stream it touched; a fold
/// writes those tails once for many commits, so the fewer folds the fewer scattered pages.
/// `events` bounds the pending entries a read may merge: 524,288 events, about forty of `send`'s
/// 1 MiB commits. A fold's cost grows with the streams it touches more than with the events, so
/// fewer, larger folds win where there are many streams, while reads merging more records did not
/// slow down. `records` bounds the records, so that a server's one-command commits do not pile up
/// thousands of them (each read searches each record). `streamsPerTransaction` and
/// `pagesPerTransaction` bound a fold's transaction: LMDB holds its dirty pages in memory until the
/// commit, and keeps them afterwards for the next transaction to reuse, so the largest fold
/// transaction stays in a process's memory to its end. Streams alone were no bound (a stream may
/// hold hundreds of index entries); pages, as `estimatedDirtyPages` counts them, are. Streams are a
/// ceiling only: new sessions' entries share their pages, and a low stream bound folded many of
/// them in far more synced transactions than their pages need. The figures behind each bound:
/// docs/performance.md, "The figures behind the code's bounds".
public struct FoldPolicy: Sendable, Equatable {
    public var events: Int
    public var records: Int
    public var streamsPerTransaction: Int
    public var pagesPerTransaction: Int

    public init(events: Int, records: Int, streamsPerTransaction: Int = 65_536, pagesPerTransaction: Int = 1_024) {
        (self.events, self.records, self.streamsPerTransaction) = (max(events, 1), max(records, 1), max(streamsPerTransaction, 1))
        self.pagesPerTransaction = max(pagesPerTransaction, 1)
    }

    public static let standard = FoldPolicy(events: 524_288, records: 64)

    /// `standard`, unless `FLOWLOG_LMDB_FOLD` says `EVENTS,RECORDS[,STREAMS[,PAGES]]` (for tests and
    /// measurements: `1,1` folds after every commit, `1000000000,1000000000` practically never).
    public static var fromEnvironment: FoldPolicy {
        guard let text = ProcessInfo.processInfo.environment["FLOWLOG_LMDB_FOLD"] else { return .standard }
        return parse(text) ?? .standard
    }

    /// `EVENTS,RECORDS[,STREAMS[,PAGES]]`, the bounds left out as `standard`'s; `nil` for fewer than two numbers.
    static func parse(_ text: String) -> FoldPolicy? {
        let numbers = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count >= 2 else { return nil }
        return FoldPolicy(
            events: numbers[0], records: numbers[1], streamsPerTransaction: numbers.count > 2 ? numbers[2] : standard.streamsPerTransaction,
            pagesPerTransaction: numbers.count > 3 ? numbers[3] : standard.pagesPerTransaction)
    }

    /// Whether `pending` (this commit's record included) should be folded now.
    func isDue(_ pending: PendingIndex, adding events: Int) -> Bool {
        pending.folded != nil || pending.eventCount + events >= self.events || pending.records.count + 1 >= records
    }
}

/// Folding: in stream id order, a range of streams per transaction (`FoldPolicy`), the records
/// through `through` (the last when the fold began). Progress is in `meta` (`foldProgress`:
/// `through`, then the first stream not yet folded), which readers consult (`PendingIndex`), and
/// the transaction of the last range deletes the folded records and the progress. Each step is an
/// ordinary synced commit: a process killed between two leaves a log that reads the same, and the
/// next fold carries on from the progress.
extension LMDBEventLog {
    /// Whether appends to this log write batch records: schema 4 and later.
    func writesBatchRecords(_ txn: Transaction) throws -> Bool {
        guard batchesDB != nil else { return false }
        return try (txn.get(meta, key: Self.schemaKey).map { Keys.decodeInt($0) } ?? 1) >= 4
    }

    /// Folds every pending record, a range of streams per transaction (after an append that made
    /// a fold due). Without `growingMap` (a write on a thread of its own while others read: growing
    /// the map needs every transaction of the process closed) a full map stops the fold, which the
    /// next synchronous append's fold finishes.
    func foldPending(growingMap: Bool = true) throws {
        do {
            while !(try environment.write(retryingWhenMapIsFull: true, growingMap: growingMap) { txn in
                try foldStep(txn, streamLimit: foldPolicy.streamsPerTransaction, pageLimit: foldPolicy.pagesPerTransaction)
            }) {}
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    /// Folds every pending record inside the caller's transaction, for the commands that rewrite
    /// indexes or rows themselves (forget, kept-row repair, import, compact, upgrade): with
    /// nothing pending they need not know batch records. Its memory is that of one whole fold, so
    /// they call `foldPending` first, and this folds only what another writer added meanwhile.
    func foldAll(_ txn: Transaction) throws {
        while !(try foldStep(txn, streamLimit: .max)) {}
    }

    /// Folds the next range of streams, stopping before the next stream once `streamLimit` streams
    /// or `pageLimit` estimated dirty pages are reached (so at least one stream a transaction, and
    /// a stream's parts never split across two); `true` when nothing is left pending.
    func foldStep(_ txn: Transaction, streamLimit: Int, pageLimit: Int = .max) throws -> Bool {
        guard let batchesDB else { return true }
        let pending = try PendingIndex.load(self, txn)
        guard let last = pending.records.last else {
            if try txn.get(meta, key: PendingIndex.progressKey) != nil { _ = try txn.delete(meta, key: PendingIndex.progressKey) }
            return true
        }
        let through = pending.folded?.through ?? last.key
        let from = pending.folded?.below ?? []
        let folding = pending.records.filter { $0.key <= through }
        // Each record's streams are in id order: merged, they give the streams still to fold in id
        // order, and each stream's parts oldest first, as far as this step goes.
        var merge = RecordMerge(
            try folding.map { record in
                try StreamCursor(record, index: from.withUnsafeBytes { record.lowerBound($0) })
            })
        var (streams, streamsWithRows, entries) = (0, 0, 0)
        // The stream-index entries come in key order (streams in id order, each stream's versions in
        // turn): written through one cursor, each put finds its leaf without a descent from the root
        // while the next key falls on the same page. A few thousand at a time (`foldPutsAtOnce`):
        // holding a whole step's (up to 49,000 entries of long streams) raised a send's peak memory.
        var index = IndexPuts()
        var pages: Int { Self.estimatedDirtyPages(gaps: index.gaps, streamsWithRows: streamsWithRows, entries: entries) }
        // The records' bytes are clean pages of the map: the puts below dirty other databases' pages only.
        while let next = merge.smallest {
            // Before stopping, the entries waiting are written, so that their gaps are counted.
            if streams < streamLimit, pages >= pageLimit, index.waitingStreams > 0 { try index.write(to: streamIndexDB, in: txn) }
            guard streams < streamLimit, pages < pageLimit else {
                try index.write(to: streamIndexDB, in: txn)
                var progress = Keys.littleEndian(UInt64(through))
                progress += Array(next)
                try txn.put(meta, key: PendingIndex.progressKey, value: progress)
                return false
            }
            let stream = String(decoding: next, as: UTF8.self)
            var rows = 0
            try merge.forEachPart { cursor in
                let record = cursor.record
                guard let entry = record.stream(at: cursor.index) else {
                    throw PendingIndex.damage(at: record.key, "the entry of stream \(stream) runs past its end")
                }
                try fold(entry, of: stream, number: streams, recordKey: record.key, index: &index, txn)
                entries += entry.eventCount + entry.rowCount
                rows += entry.rowCount
            }
            streams += 1
            index.waitingStreams += 1
            if rows > 0 { streamsWithRows += 1 }
        }
        try index.write(to: streamIndexDB, in: txn)
        let keys = folding.map { Keys.position($0.key) }
        for key in keys { _ = try txn.delete(batchesDB, key: key) }
        if pending.folded != nil { _ = try txn.delete(meta, key: PendingIndex.progressKey) }
        return keys.count == pending.records.count
    }

    /// One stream's part of one record into the stream index (`index`) and the kept rows.
    /// `number`: the stream's place in the step, its entries' run (`SortedPuts.add`): they come in
    /// version order, after every version the index holds of the stream and before any other's.
    private func fold(
        _ entry: BatchStreamEntry, of stream: String, number: Int, recordKey: Int, index: inout IndexPuts, _ txn: Transaction
    ) throws {
        var keys = KeyScratch()
        for offset in 0..<entry.eventCount {
            keys.withStreamVersion(stream, entry.firstVersion + offset) { key in
                withUnsafeBytes(of: UInt64(entry.position(at: offset)).bigEndian) { index.puts.add(key: key, value: $0, tag: 0, run: number) }
            }
            if index.puts.count == Self.foldPutsAtOnce { try index.write(to: streamIndexDB, in: txn) }
        }
        let whole = try entry.forEachRow { number, version, row in
            try keepRow(encoded: row, number: number, stream: stream, version: version, txn)
        }
        guard whole else { throw PendingIndex.damage(at: recordKey, "the kept rows of stream \(stream) run past its end") }
    }

    /// Stream-index entries a fold step holds before it writes them.
    static let foldPutsAtOnce = 4_096

    /// A fold's dirty pages, estimated: one for each gap of the stream index its entries fall into
    /// (a stream's tail, or the tails of streams whose entries fall together), one for each stream's
    /// rows' tail where it has rows, each with its share of branch pages, and one per 48 entries
    /// (events and rows, about 85 bytes each with the half-full pages splits leave). Checked against
    /// the bytes LMDB wrote at commit, in the scale logs of sessions with orders. Sessions without
    /// rows (new sessions of one event) were counted two pages each before, and folded in twice the
    /// transactions they need. New sessions with names one after the other share their index's
    /// pages, about a hundred to a page: counted by gaps, not by streams, they cost what they dirty.
    static func estimatedDirtyPages(gaps: Int, streamsWithRows: Int, entries: Int) -> Int {
        gaps + streamsWithRows + entries / 48
    }

    /// A fold step's stream-index entries, gathered and written a few thousand at a time, and the
    /// gaps of the index they fall into: those written (`SortedPuts.gapsCounted`), and a gap for
    /// each stream whose entries still wait, the most they can take.
    struct IndexPuts {
        var puts = SortedPuts()
        var waitingStreams = 0

        var gaps: Int { puts.gapsCounted + waitingStreams }

        mutating func write(to database: Database, in txn: Transaction) throws {
            guard !puts.isEmpty else { return }
            _ = try puts.write(to: database, in: txn, countingGaps: true)
            waitingStreams = 0
        }
    }
}

/// A fold's place in one record: the next of its streams (in id order) not yet folded.
struct StreamCursor {
    let record: BatchRecordView
    private(set) var index: Int
    /// The stream at `index`, `nil` past the last.
    private(set) var id: UnsafeRawBufferPointer?

    init(_ record: BatchRecordView, index: Int) throws {
        (self.record, self.index) = (record, index - 1)
        try advance()
    }

    mutating func advance() throws {
        index += 1
        guard index < record.streamCount else {
            id = nil
            return
        }
        guard let found = record.streamID(at: index) else { throw PendingIndex.damage(at: record.key, "stream \(index + 1)'s entry lies outside it") }
        id = found
    }
}

/// The pending records' streams merged in id order, each stream's parts oldest record first: a
/// binary heap of the records' cursors, ordered by the stream each is at, then by the record.
///
/// A fold merges up to 64 records (`FoldPolicy.records`). Scanning every cursor for the smallest
/// stream, then again for the cursors at it, compares ids twice per record for every stream, and
/// a million new sessions are a million streams to fold; the heap compares about twice the
/// logarithm of the records (docs/performance.md, "Many sessions").
struct RecordMerge {
    private var cursors: [StreamCursor]
    /// Indices into `cursors` of those not past their last stream, a min-heap by `precedes`.
    private var heap: [Int]

    init(_ cursors: [StreamCursor]) {
        self.cursors = cursors
        heap = cursors.indices.filter { cursors[$0].id != nil }
        for position in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(from: position) }
    }

    /// The smallest stream id any record is at; its bytes are the record's, valid while the
    /// record's transaction is.
    var smallest: UnsafeRawBufferPointer? { heap.first.flatMap { cursors[$0].id } }

    /// Hands `body` each record's cursor at the smallest stream, oldest record first, and moves
    /// each past it.
    mutating func forEachPart(_ body: (StreamCursor) throws -> Void) throws {
        guard let first = heap.first, let stream = cursors[first].id else { return }
        while let top = heap.first, let id = cursors[top].id, BatchRecordView.compare(id, stream) == 0 {
            try body(cursors[top])
            try cursors[top].advance()
            if cursors[top].id == nil {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            // A record's ids rise, so the cursor moved past every part of `stream` still to come.
            if !heap.isEmpty { siftDown(from: 0) }
        }
    }

    /// Whether the cursor at `a` comes before the one at `b`: the smaller stream, then the older record.
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        guard let left = cursors[a].id, let right = cursors[b].id else { return cursors[a].id != nil }
        let order = BatchRecordView.compare(left, right)
        return order < 0 || (order == 0 && a < b)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var child = left
            if left + 1 < heap.count, precedes(heap[left + 1], heap[left]) { child = left + 1 }
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(parent, child)
            parent = child
        }
    }
}
