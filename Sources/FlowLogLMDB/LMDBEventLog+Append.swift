import FlowLogBasics
public import FlowLogStore
import LMDB

extension LMDBEventLog {
    /// One write transaction per batch: `AppendRules` decides, `AppendStorage` stores. When the
    /// commit leaves a fold due (`FoldPolicy`), the fold runs after it, in transactions of its own.
    /// A fold that fails is not the append's failure: its events are committed, the records stay
    /// pending (and are read as they are), and the next commit tries again; `verify` names a
    /// damaged record.
    public func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
        let (results, foldDue): ([AppendResult], Bool)
        do {
            (results, foldDue) = try environment.write { txn in try append(requests, txn) }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
        if foldDue { try? foldPending() }
        return results
    }

    /// The puts the last append left, moved out (not copied: a copy would share their buffers,
    /// and the first put would copy them whole).
    private func takeReusablePuts() -> PendingEventPuts {
        var puts = PendingEventPuts()
        swap(&puts, &reusablePuts)
        return puts
    }

    /// The append inside a write transaction of the caller's (a forget appends its audit events
    /// in its own), in the layout of the log's schema as the transaction sees it.
    /// In a schema-4 log the stream-index entries and kept rows go to one batch record; the
    /// second result says whether a fold is due.
    func append(_ requests: [AppendRequest], _ txn: Transaction) throws -> ([AppendResult], Bool) {
        let interval = try storedSnapshotInterval(txn)
        let layout = try recordLayout(txn)
        let batching = try writesBatchRecords(txn)
        let pending = try PendingIndex.load(self, txn)
        return try withUnsafeMutablePointer(to: &encoder) { encoder in
            try withUnsafeMutablePointer(to: &salts) { salts in
                var storage = AppendStorage(
                    log: self, txn: txn, encoder: encoder, salts: salts, layout: layout, snapshotInterval: interval,
                    pending: pending, batching: batching, puts: takeReusablePuts())
                let results = try AppendRules.apply(requests, in: &storage)
                AppendedBytes.add(storage.bytesStored)
                // Written and emptied by `finish`, their room kept for the next append.
                reusablePuts = storage.puts
                return (results, storage.foldDue)
            }
        }
    }
}

/// An append's write transaction as `AppendRules` sees it. The three puts of each event (record,
/// stream index, event id) wait in sorted batches (`PendingEventPuts`) until `finish`; orders,
/// snapshots and receipts are written as they come. With `batching` (log schema 4) the stream-index
/// entries and kept rows go into one `BatchRecord` instead, put at `finish`.
struct AppendStorage: AppendTransaction {
    let log: LMDBEventLog
    let txn: Transaction
    /// The log's reused record encoder (noncopyable, so reached through a pointer).
    let encoder: UnsafeMutablePointer<BinaryWriter>
    /// The log's salts, for records in the salted layout.
    let salts: UnsafeMutablePointer<RecordSalts>
    /// The layout of the log's schema, read in this transaction (an upgrade may have raised it).
    let layout: RecordLayout
    let snapshotInterval: Int
    /// The log's reused puts (`LMDBEventLog.reusablePuts`), handed back once written.
    private(set) var puts: PendingEventPuts
    /// How many kept rows each stream the batch kept rows for holds so far.
    private var rowCounts: [String: Int] = [:]
    /// The batch records this transaction started with. Its bytes are clean pages of the map,
    /// which the puts before `finish` (into other databases) leave alone.
    let pending: PendingIndex
    let batching: Bool
    /// The records' bytes, for `AppendedBytes`.
    var bytesStored = 0
    private var batch = BatchRecord()
    /// The ordinal of the stream whose event was stored last: a row is kept by that event.
    private var lastOrdinal = 0
    private var firstPosition = 0
    /// Whether `finish` left a fold due (`FoldPolicy`).
    private(set) var foldDue = false

    init(
        log: LMDBEventLog, txn: Transaction, encoder: UnsafeMutablePointer<BinaryWriter>, salts: UnsafeMutablePointer<RecordSalts>,
        layout: RecordLayout, snapshotInterval: Int, pending: PendingIndex, batching: Bool, puts: PendingEventPuts
    ) {
        self.puts = puts
        self.pending = pending
        self.batching = batching
        self.log = log
        self.txn = txn
        self.encoder = encoder
        self.salts = salts
        self.layout = layout
        self.snapshotInterval = snapshotInterval
    }

    func head() throws -> (position: Int, hash: UInt64) { try log.head(txn) }
    func storedVersion(of stream: String) throws -> Int { try log.storedVersion(of: stream, txn) }
    func storedReceipt(stream: String, commandId: String) throws -> CommandReceipt? {
        try log.storedReceipt(stream: stream, commandId: commandId, txn)
    }

    mutating func store(_ record: RecordedEvent, chainedTo previousHash: UInt64, fingerprint: UInt64?, streamOrdinal: Int) throws -> UInt64 {
        if batching {
            if batch.isEmpty { firstPosition = record.position }
            batch.addEvent(stream: record.stream, version: record.version, position: record.position, ordinal: streamOrdinal)
            lastOrdinal = streamOrdinal
        }
        let hash = puts.add(
            record, chainedTo: previousHash, layout: layout, salts: &salts.pointee, encoder: &encoder.pointee, fingerprint: fingerprint,
            tag: record.position, run: streamOrdinal, indexed: !batching)
        bytesStored += encoder.pointee.count
        return hash
    }

    /// The row goes to the stream's row index (`rows`), numbered from 1, and each full page of
    /// them to `rowPages`; or, batching, to the batch record.
    mutating func keep(_ row: KeptRow, stream: String, version: Int) throws {
        let number = try rowCounts[stream] ?? log.keptRowCount(of: stream, pending, txn)
        if batching {
            batch.addRow(row, number: number + 1, ordinal: lastOrdinal, version: version)
        } else {
            try log.keepRow(row, number: number + 1, stream: stream, version: version, txn)
        }
        rowCounts[stream] = number + 1
    }

    func storeReceipt(_ receipt: CommandReceipt, stream: String, commandId: String) throws {
        try txn.put(log.commandsDB, key: Keys.command(stream, commandId), value: Keys.receipt(receipt))
    }

    func storeSnapshot(_ state: StreamState, stream: String, version: Int, position: Int) throws {
        try log.writeSnapshot(state, stream: stream, version: version, position: position, txn)
    }

    func storeHead(_ state: StreamState, stream: String, version: Int, position: Int) throws {
        try log.writeHead(state, stream: stream, version: version, position: position, txn)
    }

    mutating func finish(versions: [String: Int]) throws {
        if let refused = try puts.write(to: log, txn) {
            // The id generator repeated itself: nothing of this batch may be committed.
            throw LMDBError.keyExists("storing the event id of position \(refused.tag)")
        }
        // In key order, through one cursor: in the table's order each put descended from the root
        // to a leaf of its own, and the appending thread of a send into new sessions spent a tenth of
        // its time there.
        var sorted = SortedPuts()
        for (stream, version) in versions {
            var name = stream
            name.withUTF8 { utf8 in
                withUnsafeBytes(of: UInt64(version).littleEndian) { sorted.add(key: UnsafeRawBufferPointer(utf8), value: $0, tag: 0) }
            }
        }
        _ = try sorted.write(to: log.streamsDB, in: txn)
        if batching, !batch.isEmpty, let batchesDB = log.batchesDB {
            // Keys rise with positions: the record goes after the last one, on contiguous pages.
            try txn.put(batchesDB, key: Keys.position(firstPosition), value: batch.encoded(), flags: .append)
            foldDue = log.foldPolicy.isDue(pending, adding: batch.eventCount)
        }
    }
}
