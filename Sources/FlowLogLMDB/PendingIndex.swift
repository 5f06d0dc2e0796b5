import FlowLogBasics
import FlowLogStore
import Foundation
import LMDB

/// The stream-index entries and kept rows a transaction sees in batch records (`BatchRecord`,
/// log schema 4) rather than in `streamIndex` and `orders`, loaded once per transaction.
///
/// Everything pending is later than everything indexed: a commit's record holds versions after
/// those of every earlier commit, and a fold moves a stream's oldest records into the indexes
/// first. So a stream's entries are the index's, then each pending record's in key order — a
/// concatenation, with one binary search per record. A fold in progress has folded the records
/// through `folded.through` for the streams whose ids sort below `folded.below` (`meta`'s
/// `foldProgress`); for those streams such records are skipped, as their entries are indexed.
///
/// Loading reads each record's header, not its checksum: hashing every pending record for each
/// `state` would cost more than the read. A damaged value is still caught where it is read (its
/// bounds, and the stream and version of each record it points at), and `verify` checks every
/// checksum. A log with no records costs one count and one `meta` get.
struct PendingIndex {
    static let progressKey = Array("foldProgress".utf8)

    private(set) var records: [BatchRecordView] = []
    /// Records with keys up to `through` are folded for the streams whose ids sort below `below`.
    private(set) var folded: (through: Int, below: [UInt8])?
    /// Where each stream's parts are, for a read transaction's load (`PendingRecordCache`);
    /// without it, each record is searched.
    var map: PendingStreamMap?

    /// The last stream looked up and its parts: a state's load asks for one stream's rows and
    /// entries two or three times in one transaction.
    private final class Memo {
        var stream: String?
        var entries: [BatchStreamEntry] = []
    }
    private let memo = Memo()

    var isEmpty: Bool { records.isEmpty }
    /// Events in the records, those a fold in progress has already indexed included.
    var eventCount: Int { records.reduce(0) { $0 + $1.eventCount } }

    static var none: PendingIndex { PendingIndex() }

    /// The batch records and fold progress `txn` sees; empty for a log without `batches`. With
    /// `skippingDamaged` (`verify`, which reports them itself), unreadable records are left out.
    /// A read transaction of the snapshot the last one read (`PendingRecordCache`) reuses its load.
    static func load(_ log: LMDBEventLog, _ txn: Transaction, skippingDamaged: Bool = false) throws -> PendingIndex {
        guard let batchesDB = log.batchesDB, try txn.count(batchesDB) > 0 else { return .none }
        let cacheable = txn.isReadOnly && !skippingDamaged
        var first: UnsafeRawPointer?
        var addresses: [UnsafeRawPointer?] = []
        if cacheable {
            first = try txn.withCursor(batchesDB) { try $0.first()?.value.baseAddress }
            if let cached = log.pendingCache.lookup(snapshot: txn.snapshotID, firstRecord: first) { return cached }
        }
        var pending = PendingIndex()
        if let progress = try txn.get(log.meta, key: progressKey), progress.count >= 8 {
            pending.folded = (Keys.decodeInt(progress), Array(progress[8...]))
        }
        try txn.withCursor(batchesDB) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                let position = Keys.decodePosition(key)
                guard key.count == 8, let record = BatchRecordView(key: position, bytes: value) else {
                    if skippingDamaged {
                        entry = try cursor.next()
                        continue
                    }
                    throw damage(at: position, "its header or offset table is cut short or of an unknown format")
                }
                pending.records.append(record)
                if cacheable { addresses.append(value.baseAddress) }
                entry = try cursor.next()
            }
        }
        if cacheable { return log.pendingCache.store(pending, addresses: addresses, snapshot: txn.snapshotID) }
        return pending
    }

    /// A copy with a memo of its own (the cache's copy is shared between threads).
    func fresh() -> PendingIndex {
        var copy = PendingIndex()
        (copy.records, copy.folded, copy.map) = (records, folded, map)
        return copy
    }

    static func damage(at position: Int, _ problem: String) -> FlowLogError {
        .damaged(
            RecordDamage(
                position: position, stream: nil,
                problem: """
                    the batch record of the commit from this position (the stream index and kept rows of its events, log schema 4) \
                    is damaged: \(problem); restore the log from a backup, or export it and import the export into a new log
                    """))
    }

    /// Whether `id`'s entries in `record` are already in the indexes (a fold in progress).
    func isFolded(_ record: BatchRecordView, _ id: UnsafeRawBufferPointer) -> Bool {
        guard let folded, record.key <= folded.through else { return false }
        return folded.below.withUnsafeBytes { BatchRecordView.compare(id, $0) < 0 }
    }

    /// Each pending (not yet folded) entry of every record, for `verify`'s digest: `body` gets the
    /// stream id, version and position. Damaged stream entries are left out (`checkBatchRecords`
    /// names them).
    func forEachEntry(_ body: (_ stream: UnsafeRawBufferPointer, _ version: Int, _ position: Int) -> Void) {
        for record in records {
            for index in 0..<record.streamCount {
                guard let entry = record.stream(at: index), !isFolded(record, entry.id) else { continue }
                for offset in 0..<entry.eventCount { body(entry.id, entry.firstVersion + offset, entry.position(at: offset)) }
            }
        }
    }

    /// The stream's pending parts, oldest first.
    func entries(of stream: String) throws -> [BatchStreamEntry] {
        guard !records.isEmpty else { return [] }
        if memo.stream == stream { return memo.entries }
        if let map {
            let found = try map.entries(of: stream, in: self)
            (memo.stream, memo.entries) = (stream, found)
            return found
        }
        var bytes = stream
        let found = try bytes.withUTF8 { utf8 in
            let id = UnsafeRawBufferPointer(utf8)
            var found: [BatchStreamEntry] = []
            for record in records where !isFolded(record, id) {
                let index = record.lowerBound(id)
                guard index < record.streamCount, let name = record.streamID(at: index), BatchRecordView.compare(name, id) == 0 else { continue }
                guard let entry = record.stream(at: index) else {
                    throw Self.damage(at: record.key, "the entry of stream \(stream) runs past its end")
                }
                found.append(entry)
            }
            return found
        }
        (memo.stream, memo.entries) = (stream, found)
        return found
    }

    /// The position of the stream's `version` among the pending entries.
    func position(of stream: String, version: Int) throws -> Int? {
        for entry in try entries(of: stream) where version >= entry.firstVersion && version <= entry.lastVersion {
            return entry.position(at: version - entry.firstVersion)
        }
        return nil
    }

    /// The stream's pending (version, position) pairs from `fromVersion` on, in version order.
    func forEachEntry(of stream: String, fromVersion: Int, _ body: (_ version: Int, _ position: Int) throws -> Bool) throws {
        for entry in try entries(of: stream) where entry.lastVersion >= fromVersion {
            for offset in max(0, fromVersion - entry.firstVersion)..<entry.eventCount {
                guard try body(entry.firstVersion + offset, entry.position(at: offset)) else { return }
            }
        }
    }

    /// The number of the stream's last kept row, pending ones included (`indexed`: the index's).
    func keptRowCount(of stream: String, indexed: Int) throws -> Int {
        try entries(of: stream).last { $0.rowCount > 0 }.map { $0.firstRow + $0.rowCount - 1 } ?? indexed
    }

    /// Appends the stream's pending rows numbered `rows.count + 1` on, up to `count` in all.
    func appendRows(of stream: String, upTo count: Int, into rows: inout KeptRows) throws {
        for entry in try entries(of: stream) where entry.rowCount > 0 && entry.firstRow + entry.rowCount - 1 > rows.count {
            let whole = entry.forEachRow { number, _, row in
                if number == rows.count + 1, rows.count < count { _ = rows.append(encoded: row) }
            }
            guard whole else { throw Self.damage(at: entry.position(at: 0), "the kept rows of stream \(stream) run past its end") }
            if rows.count >= count { return }
        }
    }
}
