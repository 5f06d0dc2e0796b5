import FlowDomain
import LMDB

/// Why an import was refused. Nothing of a refused import is committed.
public struct ImportError: Equatable, Sendable, CustomStringConvertible {
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

/// Where the log ends when an import begins: its last position and chain hash, and how often it
/// keeps snapshots.
struct ImportStart {
    var position: Int
    var hash: UInt64
    var snapshotInterval: Int
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
        try importTransaction(expectedBytes: expectedBytes) { txn, start in
            let sink = ImportSink(log: self, txn: txn, start: start)
            try produce(sink)
            try sink.finish()
            return sink.count
        }
    }

    /// The one write transaction of an import; `body` writes prepared batches into it (`write(_:_:)`).
    func importTransaction(expectedBytes: Int, _ body: (Transaction, ImportStart) throws -> Int) throws -> Int {
        if expectedBytes > 0 {
            // An import reads its input once, so it cannot be replayed after a full map: size the map first.
            let used = try reading { txn in try txn.count(eventsDB) } * 256
            try environment.ensureMapSize(atLeast: used + expectedBytes * 3 + (64 << 20))
        }
        do {
            return try environment.write(retryingWhenMapIsFull: false, large: true) { txn in
                let (position, hash) = try head(txn)
                return try body(txn, ImportStart(position: position, hash: hash, snapshotInterval: try storedSnapshotInterval(txn)))
            }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    /// A stream's version and state as the log holds them in `txn`, for an import that reaches it.
    func storedStream(_ stream: String, _ txn: Transaction) throws -> (version: Int, state: FlowState) {
        let version = try storedVersion(of: stream, txn)
        return (version, version == 0 ? FlowDecider.initialState : try state(ofStream: stream, throughPosition: nil, txn).state)
    }

    /// Writes a prepared batch into the import's transaction, then reports why the batch ended early,
    /// if it did. An event id the log already holds ends the import first, naming the earliest line
    /// that repeats one: those lines come before whatever ended the batch.
    func write(_ batch: inout PreparedImportBatch, _ txn: Transaction) throws {
        if let refused = try batch.puts.write(to: self, txn) {
            let existing = try txn.get(eventIdsDB, key: Keys.eventID(refused.eventId)).map(Keys.decodePosition) ?? 0
            throw FlowLogError.refusedImport(ImportError(line: refused.tag, problem: "its event id \(refused.eventId) is already in the log, at position \(existing)"))
        }
        for placed in batch.orders {
            try recordOrder(placed.order, number: placed.number, stream: placed.stream, version: placed.version, txn)
        }
        for snapshot in batch.snapshots {
            try txn.put(snapshotsDB, key: snapshot.key, value: snapshot.value)
        }
        for head in batch.heads {
            try txn.put(streamsDB, key: Array(head.stream.utf8), value: Keys.littleEndian(UInt64(head.version)))
        }
        if let failure = batch.failure { throw failure }
    }
}

/// What a run of imported events writes: their three sorted puts each, the orders they placed and
/// the snapshots they reached; the last batch also carries each stream's new head. Prepared away
/// from the write transaction (on a thread of its own, for `flowlog import`), so that the writing
/// thread does nothing but write.
struct PreparedImportBatch {
    var puts = PendingEventPuts()
    var orders: [(order: Order, number: Int, stream: String, version: Int)] = []
    var snapshots: [(key: [UInt8], value: [UInt8])] = []
    var heads: [(stream: String, version: Int)] = []
    /// Why the import ends after this batch's events (a line that breaks a rule, or cannot be read).
    var failure: Error?
    /// The events in the batch.
    var count = 0
}

/// Checks and folds imported events in order and turns them into `PreparedImportBatch`es. A
/// struct, not a class: the hot path then pays no run-time exclusivity checks on its fields
/// (noncopyable, as the `BinaryWriter`s it holds are).
///
/// Each stream is folded as it loads, so that the imported log has fingerprints and snapshots like
/// one written through the pipeline. It touches no transaction itself: a stream it has not met is
/// loaded through `loadStream`, which reads the log as it was before the import.
struct ImportPreparation: ~Copyable {
    /// What the preparation knows of a stream the import has touched: its version and folded state.
    private struct StreamFold {
        var version: Int
        var state: FlowState
    }

    private var position: Int
    private var previousHash: UInt64
    private let snapshotInterval: Int
    private let loadStream: (String) throws -> (version: Int, state: FlowState)
    /// Folds live in an array (read and changed in place); the dictionary finds a stream's slot.
    private var folds: [StreamFold] = []
    private var slots: [String: Int] = [:]
    /// The last event's stream and slot: events of a stream mostly come in runs (a user's visit),
    /// and comparing two equal identifiers costs less than hashing one.
    private var lastStream: (name: String, slot: Int)?
    private var record = BinaryWriter(capacity: 512)
    private var scratch = BinaryWriter(capacity: 512)
    private var batch = PreparedImportBatch()

    /// Events a batch gathers before it is written: large enough that a stream's versions in the
    /// batch make long runs in the stream index (each run costs one descent of the B-tree), small
    /// enough that the waiting puts take a few megabytes and the writer starts soon. Measured with
    /// `flowlog-bench --cases import`: 8,192 left the writer behind; 16,384 to 65,536 were alike.
    static let batchSize = 32_768

    init(start: ImportStart, loadStream: @escaping (String) throws -> (version: Int, state: FlowState)) {
        position = start.position
        previousHash = start.hash
        snapshotInterval = start.snapshotInterval
        self.loadStream = loadStream
    }

    var isFull: Bool { batch.puts.count >= Self.batchSize }

    /// Adds one event to the batch, or throws the `ImportError` of the rule it breaks; then the
    /// batch (`take()`) holds the events before it, which must be written first.
    mutating func add(_ event: RecordedEvent, line: Int) throws {
        guard event.position == position + 1 else {
            throw FlowLogError.refusedImport(ImportError(line: line, problem: "its position is \(event.position), but the log's next position is \(position + 1) (positions must be contiguous)"))
        }
        let slot = try slot(of: event.stream)
        let current = folds[slot].version
        guard event.version == current + 1 else {
            throw FlowLogError.refusedImport(ImportError(line: line, problem: "it is version \(event.version) of stream \(event.stream), but that stream's next version is \(current + 1)"))
        }
        let fingerprint = Self.fold(event, into: &folds[slot], scratch: &scratch)
        previousHash = batch.puts.add(event, chainedTo: previousHash, encoder: &record, fingerprint: fingerprint, tag: line, run: slot)
        if case .cart(.orderPlaced) = event.event, let order = folds[slot].state.orders.orders.last {
            batch.orders.append((order, folds[slot].state.orders.orders.count, event.stream, event.version))
        }
        if snapshotInterval > 0, event.version % snapshotInterval == 0 {
            batch.snapshots.append((Keys.streamVersion(event.stream, event.version),
                                    LMDBEventLog.snapshotValue(folds[slot].state, position: event.position)))
        }
        position = event.position
    }

    /// The batch so far, sorted for writing; the next one starts empty.
    mutating func take() -> PreparedImportBatch {
        var taken = batch
        batch = PreparedImportBatch(puts: PendingEventPuts(reservingLike: taken.puts))
        taken.count = taken.puts.count
        taken.puts.sort()
        return taken
    }

    /// The last batch: what is left, and the new head of every stream the import touched.
    mutating func takeLast() -> PreparedImportBatch {
        var last = take()
        last.heads = slots.map { ($0.key, folds[$0.value].version) }
        return last
    }

    /// Folds `event` into its stream's fold and returns the new state's fingerprint. Static, with
    /// the fold and the scratch writer as separate `inout`s: read through `self` in a mutating
    /// method, the state was copied (its arrays and strings retained) three times an event.
    private static func fold(_ event: RecordedEvent, into fold: inout StreamFold, scratch: inout BinaryWriter) -> UInt64 {
        fold.version = event.version
        FlowDecider.evolve(&fold.state, event.event)
        return StateCodec.fingerprint(fold.state, scratch: &scratch)
    }

    private mutating func slot(of stream: String) throws -> Int {
        if let last = lastStream, last.name == stream { return last.slot }
        let slot = try slots[stream] ?? load(stream)
        lastStream = (stream, slot)
        return slot
    }

    /// A stream the import has not touched yet: its version and state as the log has them.
    private mutating func load(_ stream: String) throws -> Int {
        let (version, state) = try loadStream(stream)
        folds.append(StreamFold(version: version, state: state))
        slots[stream] = folds.count - 1
        return folds.count - 1
    }
}

/// Takes imported events one by one inside the import's write transaction, preparing and writing
/// them on the caller's thread (`flowlog import` prepares on a thread of its own: `NDJSONImport`).
/// A refused event has the events before it written first, so the error always names the first bad line.
public final class ImportSink {
    private let log: LMDBEventLog
    private let txn: Transaction
    private var preparation: ImportPreparation
    public private(set) var count = 0

    init(log: LMDBEventLog, txn: Transaction, start: ImportStart) {
        self.log = log
        self.txn = txn
        preparation = ImportPreparation(start: start) { stream in try log.storedStream(stream, txn) }
    }

    public func add(_ record: RecordedEvent, line: Int) throws {
        do {
            try preparation.add(record, line: line)
        } catch {
            var batch = preparation.take()
            batch.failure = error
            try log.write(&batch, txn)
        }
        count += 1
        if preparation.isFull {
            var batch = preparation.take()
            try log.write(&batch, txn)
        }
    }

    func finish() throws {
        var last = preparation.takeLast()
        try log.write(&last, txn)
    }
}
