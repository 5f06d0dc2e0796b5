import FlowDomain
import LMDB

/// Why an import was refused. Nothing of a refused import is committed.
public struct ImportError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let problem: String

    public init(line: Int, problem: String) {
        self.line = line
        self.problem = problem
    }

    public var description: String {
        "Line \(line) of the import cannot be taken: \(problem). Nothing was imported; mend the line (or the log) and import again."
    }
}

extension LMDBEventLog {
    /// Loads events as they were recorded elsewhere, keeping their positions, versions and ids, in one
    /// write transaction: all of them or none.
    ///
    /// `produce` hands each event, with the line it came from, to the sink. The first event must follow
    /// the log's last position, each stream's versions must continue where the log has them, and no
    /// event id may be in the log already; the first that breaks a rule ends the import with an
    /// `ImportError` naming its line, and nothing is committed.
    public func importEvents(expectedBytes: Int = 0, _ produce: (ImportSink) throws -> Void) throws -> Int {
        if expectedBytes > 0 {
            // An import reads its input once, so it cannot be replayed after a full map: size the map first.
            let used = try reading { txn in try txn.count(eventsDB) } * 256
            try environment.ensureMapSize(atLeast: used + expectedBytes * 3 + (64 << 20))
        }
        do {
            return try environment.write(retryingWhenMapIsFull: false) { txn in
                let sink = ImportSink(log: self, txn: txn, head: try head(txn), snapshotInterval: try storedSnapshotInterval(txn))
                try produce(sink)
                try sink.finish()
                return sink.count
            }
        } catch let error as LMDBError {
            throw EventLogError.writing(error, path: path)
        }
    }
}

/// Takes imported events one by one inside the import's write transaction.
///
/// Each event is checked and folded at once; its three B-tree puts (record, event id, stream index)
/// wait in sorted batches until `flush()`, so neighbouring keys share a cursor's descent (see
/// `PendingEventPuts`). A refused event flushes what came before it first, so the error always names the
/// first bad line.
public final class ImportSink {
    /// What the sink knows of a stream the import has touched: its version and its folded state.
    private struct StreamFold {
        var version: Int
        var state: FlowState
    }

    private let log: LMDBEventLog
    private let txn: Transaction
    private var position: Int
    private var previousHash: UInt64
    /// Folds live in an array (read and changed in place); the dictionary finds a stream's slot.
    private var folds: [StreamFold] = []
    private var slots: [String: Int] = [:]
    private var writer = BinaryWriter(capacity: 512)
    private var scratch = BinaryWriter(capacity: 512)
    private var puts = PendingEventPuts()
    private let snapshotInterval: Int
    public private(set) var count = 0

    init(log: LMDBEventLog, txn: Transaction, head: (position: Int, hash: UInt64), snapshotInterval: Int) {
        self.log = log
        self.txn = txn
        self.snapshotInterval = snapshotInterval
        self.position = head.position
        self.previousHash = head.hash
    }

    public func add(_ record: RecordedEvent, line: Int) throws {
        guard record.position == position + 1 else {
            try refuse(line: line, "its position is \(record.position), but the log's next position is \(position + 1) (positions must be contiguous)")
        }
        let slot = try slots[record.stream] ?? load(record.stream)
        let current = folds[slot].version
        guard record.version == current + 1 else {
            try refuse(line: line, "it is version \(record.version) of stream \(record.stream), but that stream's next version is \(current + 1)")
        }
        previousHash = RecordCodec.encode(record, previousHash: previousHash, into: &writer)
        // Fold the stream as it loads, so the imported log has fingerprints and snapshots like one
        // written through the pipeline.
        folds[slot].version = record.version
        FlowDecider.evolve(&folds[slot].state, record.event)
        let fingerprint = StateCodec.fingerprint(folds[slot].state, scratch: &scratch)
        writer.bytes.withUnsafeBytes {
            puts.add(position: record.position, record: $0, eventId: record.eventId, stream: record.stream, version: record.version,
                     fingerprint: fingerprint, tag: line, run: slot)
        }
        if case .cart(.orderPlaced) = record.event, let order = folds[slot].state.orders.orders.last {
            try log.recordOrder(order, number: folds[slot].state.orders.orders.count, stream: record.stream, version: record.version, txn)
        }
        if snapshotInterval > 0, record.version % snapshotInterval == 0 {
            try log.writeSnapshot(folds[slot].state, stream: record.stream, version: record.version, position: record.position, txn)
        }
        position = record.position
        count += 1
        if puts.count >= Self.batchSize { try flush() }
    }

    /// Events whose puts wait for one sorted write: large enough to share descents, small enough
    /// that the waiting puts take a megabyte or two.
    static let batchSize = 8_192

    /// Writes the batched puts. A known event id among them ends the import, naming its line.
    func flush() throws {
        if let refused = try puts.write(to: log, txn) {
            let existing = try txn.get(log.eventIdsDB, key: Keys.eventID(refused.eventId)).map(Keys.decodePosition) ?? 0
            throw ImportError(line: refused.tag, problem: "its event id \(refused.eventId) is already in the log, at position \(existing)")
        }
    }

    func finish() throws {
        try flush()
        for (stream, slot) in slots {
            try txn.put(log.streamsDB, key: Array(stream.utf8), value: Keys.littleEndian(UInt64(folds[slot].version)))
        }
    }

    /// A stream the import has not touched yet: its version and state as the log has them.
    private func load(_ stream: String) throws -> Int {
        let version = try log.storedVersion(of: stream, txn)
        let state = version == 0 ? FlowDecider.initialState : try log.state(ofStream: stream, throughPosition: nil, txn).state
        folds.append(StreamFold(version: version, state: state))
        slots[stream] = folds.count - 1
        return folds.count - 1
    }

    /// Ends the import at `line`, after the lines before it had their say.
    private func refuse(line: Int, _ problem: String) throws -> Never {
        try flush()
        throw ImportError(line: line, problem: problem)
    }
}

#if canImport(Glibc)
import Glibc
#endif
