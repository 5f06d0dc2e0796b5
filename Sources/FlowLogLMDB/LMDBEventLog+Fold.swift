import FlowLog
import Foundation
import LMDB

/// When a schema-4 log's pending batch records (`BatchRecord`) are folded into `streamIndex` and
/// `orders`/`orderPages`.
///
/// A commit writes one batch record instead of the tail pages of every stream it touched; a fold
/// writes those tails once for many commits, so the fewer folds the fewer scattered pages.
/// `events` bounds the pending entries a read may merge: 524,288 events, about forty of `send`'s
/// 1 MiB commits. A fold's cost grows with the streams it touches more than with the events, so
/// fewer folds win where there are many streams: eight sends of 100,000 commands in a row, mean
/// time a send, 0.41 s at 262,144 and 0.33 s at 524,288 into the 2.1M-event log, 0.69 s and 0.59 s
/// into the 10M-event log (0.44 s at 131,072 into the 2.1M one, five sends); reads merging more
/// records did not show. `records` bounds the records, so that a server's one-command commits do
/// not pile up thousands of them (each read searches each record). `streamsPerTransaction` bounds a fold's
/// transaction: each stream costs about three dirty pages (its index tail, a split, its rows'
/// tail), which LMDB holds in memory until the commit, so 1,024 streams hold about 12 MB where a
/// whole fold of 10,000 streams would hold over 64 MB.
public struct FoldPolicy: Sendable, Equatable {
    public var events: Int
    public var records: Int
    public var streamsPerTransaction: Int

    public init(events: Int, records: Int, streamsPerTransaction: Int = 1_024) {
        (self.events, self.records, self.streamsPerTransaction) = (max(events, 1), max(records, 1), max(streamsPerTransaction, 1))
    }

    public static let standard = FoldPolicy(events: 524_288, records: 64)

    /// `standard`, unless `FLOWLOG_LMDB_FOLD` says `EVENTS,RECORDS[,STREAMS]` (for tests and
    /// measurements: `1,1` folds after every commit, `1000000000,1000000000` practically never).
    public static var fromEnvironment: FoldPolicy {
        guard let text = ProcessInfo.processInfo.environment["FLOWLOG_LMDB_FOLD"] else { return .standard }
        let numbers = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count >= 2 else { return .standard }
        return FoldPolicy(events: numbers[0], records: numbers[1], streamsPerTransaction: numbers.count > 2 ? numbers[2] : 1_024)
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
                try foldStep(txn, streamLimit: foldPolicy.streamsPerTransaction)
            }) {}
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    /// Folds every pending record inside the caller's transaction, for the commands that rewrite
    /// indexes or rows themselves (forget, kept-row repair, import, compact, upgrade): with
    /// nothing pending they need not know batch records. Its memory is that of one whole fold.
    func foldAll(_ txn: Transaction) throws {
        while !(try foldStep(txn, streamLimit: .max)) {}
    }

    /// Folds the next range of at most `streamLimit` streams; `true` when nothing is left pending.
    func foldStep(_ txn: Transaction, streamLimit: Int) throws -> Bool {
        guard let batchesDB else { return true }
        let pending = try PendingIndex.load(self, txn)
        guard let last = pending.records.last else {
            if try txn.get(meta, key: PendingIndex.progressKey) != nil { _ = try txn.delete(meta, key: PendingIndex.progressKey) }
            return true
        }
        let through = pending.folded?.through ?? last.key
        let from = pending.folded?.below ?? []
        let folding = pending.records.filter { $0.key <= through }
        // The distinct streams still to fold, in id order.
        var names = Set<[UInt8]>()
        for record in folding {
            var index = from.withUnsafeBytes { record.lowerBound($0) }
            while index < record.streamCount {
                guard let id = record.streamID(at: index) else { throw PendingIndex.damage(at: record.key, "stream \(index + 1)'s entry lies outside it") }
                names.insert(Array(id))
                index += 1
            }
        }
        let streams = names.sorted { $0.lexicographicallyPrecedes($1) }
        let range = streams.prefix(streamLimit)
        // The records' bytes are clean pages of the map: the puts below dirty other databases' pages only.
        for id in range {
            let stream = String(decoding: id, as: UTF8.self)
            try id.withUnsafeBytes { id in
                for record in folding {
                    guard let entry = record.entry(of: id) else { continue }
                    try fold(entry, of: stream, recordKey: record.key, txn)
                }
            }
        }
        if range.count < streams.count {
            var progress = Keys.littleEndian(UInt64(through))
            progress += streams[range.count]
            try txn.put(meta, key: PendingIndex.progressKey, value: progress)
            return false
        }
        let keys = folding.map { Keys.position($0.key) }
        for key in keys { _ = try txn.delete(batchesDB, key: key) }
        if pending.folded != nil { _ = try txn.delete(meta, key: PendingIndex.progressKey) }
        return keys.count == pending.records.count
    }

    /// One stream's part of one record into the stream index and the kept rows.
    private func fold(_ entry: BatchStreamEntry, of stream: String, recordKey: Int, _ txn: Transaction) throws {
        var keys = KeyScratch()
        for offset in 0..<entry.eventCount {
            try keys.withStreamVersion(stream, entry.firstVersion + offset) { key in
                try withUnsafeBytes(of: UInt64(entry.position(at: offset)).bigEndian) { try txn.put(streamIndexDB, key: key, value: $0) }
            }
        }
        let whole = try entry.forEachRow { number, version, row in
            try keepRow(encoded: row, number: number, stream: stream, version: version, txn)
        }
        guard whole else { throw PendingIndex.damage(at: recordKey, "the kept rows of stream \(stream) run past its end") }
    }
}
