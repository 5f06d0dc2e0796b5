import FlowLog
import LMDB

extension LMDBEventLog {
    /// One write transaction per batch: `AppendRules` decides, `AppendStorage` stores.
    public func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
        do {
            return try environment.write { txn in try append(requests, txn) }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    /// The append inside a write transaction of the caller's (a forget appends its audit events
    /// in its own), in the layout of the log's schema as the transaction sees it.
    func append(_ requests: [AppendRequest], _ txn: Transaction) throws -> [AppendResult] {
        let interval = try storedSnapshotInterval(txn)
        let layout = try recordLayout(txn)
        return try withUnsafeMutablePointer(to: &encoder) { encoder in
            try withUnsafeMutablePointer(to: &salts) { salts in
                var storage = AppendStorage(log: self, txn: txn, encoder: encoder, salts: salts, layout: layout, snapshotInterval: interval)
                return try AppendRules.apply(requests, in: &storage)
            }
        }
    }
}

/// An append's write transaction as `AppendRules` sees it. The three puts of each event (record,
/// stream index, event id) wait in sorted batches (`PendingEventPuts`) until `finish`; orders,
/// snapshots and receipts are written as they come.
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
    private var puts = PendingEventPuts()
    /// How many kept rows each stream the batch kept rows for holds so far.
    private var rowCounts: [String: Int] = [:]

    init(log: LMDBEventLog, txn: Transaction, encoder: UnsafeMutablePointer<BinaryWriter>, salts: UnsafeMutablePointer<RecordSalts>,
         layout: RecordLayout, snapshotInterval: Int) {
        self.log = log
        self.txn = txn
        self.encoder = encoder
        self.salts = salts
        self.layout = layout
        self.snapshotInterval = snapshotInterval
    }

    func head() throws -> (position: Int, hash: UInt64) { try log.head(txn) }
    func storedVersion(of stream: String) throws -> Int { try log.storedVersion(of: stream, txn) }
    func storedReceipt(stream: String, commandId: String) throws -> CommandReceipt? { try log.storedReceipt(stream: stream, commandId: commandId, txn) }

    mutating func store(_ record: RecordedEvent, chainedTo previousHash: UInt64, fingerprint: UInt64?, streamOrdinal: Int) throws -> UInt64 {
        puts.add(record, chainedTo: previousHash, layout: layout, salts: &salts.pointee, encoder: &encoder.pointee, fingerprint: fingerprint, tag: record.position, run: streamOrdinal)
    }

    /// The row goes to the stream's row index (`rows`), numbered from 1, and each full page of
    /// them to `rowPages`.
    mutating func keep(_ row: KeptRow, stream: String, version: Int) throws {
        let number = try rowCounts[stream] ?? log.keptRowCount(of: stream, txn)
        try log.keepRow(row, number: number + 1, stream: stream, version: version, txn)
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
        for (stream, version) in versions {
            try txn.put(log.streamsDB, key: Array(stream.utf8), value: Keys.littleEndian(UInt64(version)))
        }
    }
}
