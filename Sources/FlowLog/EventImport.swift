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
public final class ImportSink {
    private let log: LMDBEventLog
    private let txn: Transaction
    private var position: Int
    private var previousHash: UInt64
    private var versions: [String: Int] = [:]
    private var writer = BinaryWriter(capacity: 512)
    private var keys = KeyScratch()
    private var scratch = BinaryWriter(capacity: 512)
    private var states: [String: FlowState] = [:]
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
            throw ImportError(line: line, problem: "its position is \(record.position), but the log's next position is \(position + 1) (positions must be contiguous)")
        }
        let current = try versions[record.stream] ?? log.storedVersion(of: record.stream, txn)
        guard record.version == current + 1 else {
            throw ImportError(line: line, problem: "it is version \(record.version) of stream \(record.stream), but that stream's next version is \(current + 1)")
        }
        previousHash = RecordCodec.encode(record, previousHash: previousHash, into: &writer)
        try keys.withPosition(record.position) { positionKey in
            do {
                try keys.withEventID(record.eventId) { try txn.put(log.eventIdsDB, key: $0, value: positionKey, flags: .noOverwrite) }
            } catch let error as LMDBError where error.isKeyExists {
                let existing = try txn.get(log.eventIdsDB, key: Keys.eventID(record.eventId)).map(Keys.decodePosition) ?? 0
                throw ImportError(line: line, problem: "its event id \(record.eventId) is already in the log, at position \(existing)")
            }
            try writer.bytes.withUnsafeBytes { try txn.put(log.eventsDB, key: positionKey, value: $0, flags: .append) }
        }
        // Fold the stream as it loads, so the imported log has fingerprints and snapshots like one
        // written through the pipeline.
        var state: FlowState
        if let folded = states.removeValue(forKey: record.stream) {
            state = folded
        } else {
            state = record.version == 1 ? FlowDecider.initialState : try log.state(ofStream: record.stream, throughPosition: nil, txn).state
        }
        FlowDecider.evolve(&state, record.event)
        let fingerprint = StateCodec.fingerprint(state, scratch: &scratch)
        try keys.withIndexEntry(position: record.position, fingerprint: fingerprint) { entry in
            try keys.withStreamVersion(record.stream, record.version) { try txn.put(log.streamIndexDB, key: $0, value: entry) }
        }
        if case .cart(.orderPlaced) = record.event, let order = state.orders.orders.last {
            try log.recordOrder(order, number: state.orders.orders.count, stream: record.stream, version: record.version, txn)
        }
        if snapshotInterval > 0, record.version % snapshotInterval == 0 {
            try log.writeSnapshot(state, stream: record.stream, version: record.version, position: record.position, txn)
        }
        states[record.stream] = state
        versions[record.stream] = record.version
        position = record.position
        count += 1
    }

    func finish() throws {
        for (stream, version) in versions {
            try txn.put(log.streamsDB, key: Array(stream.utf8), value: Keys.littleEndian(UInt64(version)))
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
