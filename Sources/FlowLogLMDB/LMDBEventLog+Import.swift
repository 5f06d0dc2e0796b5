public import FlowLogBasics
public import FlowLogStore
import LMDB

/// Imports into LMDB, fed by the core's import pipeline. The preparing thread sorts each batch's
/// puts, so the writing thread only writes. Into an open log an import is one write transaction
/// (all or nothing); `flowlog import` stages a large one instead (`LMDBEventLog+StagedImport`),
/// committing it in steps into a copy that replaces the log's file once complete. Either way its
/// first step folds the log's pending batch records (log schema 4), and the import then writes
/// the stream index and kept rows directly: everything it adds is later than everything folded.
extension LMDBEventLog: EventImporting, ImportTarget {
    public func importNDJSON(from reader: consuming LineReader, expectedBytes: Int, progress: Progress?) throws -> Int {
        try ImportPipeline.run(reader, into: self, expectedBytes: expectedBytes, progress: progress)
    }

    /// Loads events as they were recorded elsewhere, keeping their positions, versions and ids, in one
    /// write transaction: all of them or none. The first event must follow the log's last position,
    /// each stream's versions must continue where the log has them, and no event id may be in the
    /// log already; the first that breaks a rule ends the import naming its line.
    public func importEvents(_ produce: (any EventSink) throws -> Void) throws -> Int {
        try withImportSession(expectedBytes: 0) { session in try (session as! LMDBImportSession).importEvents(produce) }
    }

    /// The one write transaction of an import.
    package func withImportSession(expectedBytes: Int, _ body: (any ImportSession) throws -> Int) throws -> Int {
        try withImportSession(expectedBytes: expectedBytes, pagesPerStep: nil, body)
    }

    /// An import's write transaction; with `pagesPerStep`, committed (and continued in a fresh one)
    /// whenever the batches written since the last commit have changed about that many pages,
    /// which bounds the pages LMDB holds in memory. Only for a log nobody else reads (a staged copy):
    /// each step is visible once committed.
    func withImportSession(expectedBytes: Int, pagesPerStep: Int?, _ body: (any ImportSession) throws -> Int) throws -> Int {
        if expectedBytes > 0 {
            // An import reads its input once, so it cannot be replayed after a full map: size the map first.
            let used = try reading { txn in try txn.count(eventsDB) } * 256
            try environment.ensureMapSize(atLeast: used + expectedBytes * 3 + (64 << 20))
        }
        // Folded in bounded steps first, as `forget` does; the first step then folds only what
        // came meanwhile.
        try foldPending()
        do {
            return try environment.writeInSteps(aroundLastCommit: { CommitWriteback.around($0, in: environment) }) { steps in
                let txn = steps.current
                try foldAll(txn)
                let (position, hash) = try head(txn)
                var start = ImportStart(
                    position: position, hash: hash, snapshotInterval: try storedSnapshotInterval(txn),
                    layout: try recordLayout(txn))
                // Orders live in the order index; snapshots and heads hold only their number.
                start.snapshotsHoldKeptRows = false
                // In steps, batches of as many events as the step has pages, 4,096 (no slower than
                // 8,192, with half the puts in flight): a batch is never cut, and tiny steps
                // (tests') then take tiny batches.
                if let pagesPerStep { start.batchSize = min(16_384, max(16, pagesPerStep)) }
                let importSteps = ImportSteps(steps, pagesPerStep: pagesPerStep)
                // In steps, streams beyond those the preparation holds are set aside on disk, and
                // tiny steps hold few.
                var spill: SpilledStreams?
                if let pagesPerStep {
                    start.streamsHeld = min(ImportPreparation.streamsHeld, max(16, 2 * pagesPerStep))
                    spill = try SpilledStreams(folder: path + "/" + SpilledStreams.folderName)
                }
                return try body(LMDBImportSession(log: self, steps: importSteps, start: start, spilled: spill))
            }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    /// A stream's version and state as the log holds them in `txn`, for an import that reaches it.
    func storedStream(_ stream: String, _ txn: Transaction) throws -> (version: Int, state: StreamState) {
        let version = try storedVersion(of: stream, txn)
        return (version, version == 0 ? StreamState.initial : try state(ofStream: stream, throughPosition: nil, txn).state)
    }
}

/// An import's write transaction. Streams the import continues are read, on the preparing thread,
/// each in a read transaction of its own begun when the preparation first meets the stream. The
/// import holds the writer's lock, and a stream is only written after the preparation has read
/// it (and then folds it itself), so each read sees the stream exactly as the import found it, and
/// no read transaction stays open across the import's steps (one that did would keep LMDB from
/// reusing any page the steps free).
package struct LMDBImportSession: ImportSession {
    let log: LMDBEventLog
    let steps: ImportSteps
    package let start: ImportStart
    /// In steps: the streams the preparation set aside, and at the end every stream it touched.
    let spilled: SpilledStreams?

    package var streamSpill: (any ImportStreamSpill)? { spilled }

    /// The transaction the import writes in now (see `ImportSteps`).
    var txn: Transaction { steps.current }

    package func makeBuilder() -> any ImportBatchBuilder { LMDBImportBuilder(defersIndex: steps.deferredIndex != nil) }

    package func withStreamLoader(_ body: (@escaping (String) throws -> (version: Int, state: StreamState)) throws -> Void) throws {
        let log = self.log
        try body { stream in try log.reading { txn in try log.storedStream(stream, txn) } }
    }

    /// Writes a prepared batch. An event id the log already holds ends the import first, naming the
    /// earliest line that repeats one: those lines come before whatever ended the batch.
    package func write(_ prepared: any Sendable, heads: [(stream: String, version: Int)]) throws {
        var content = prepared as! LMDBImportBuilder.Content
        let deferred = steps.deferredIndex
        let pages =
            content.puts.pagesToWrite(streams: deferred == nil ? content.streams : 0) + content.rows.count
            + content.snapshots.count + heads.count
        try steps.willWrite(pages: pages)
        if let refused = try content.puts.write(to: log, txn) {
            let existing = try txn.get(log.eventIdsDB, key: Keys.eventID(refused.eventId)).map(Keys.decodePosition) ?? 0
            throw FlowLogError.refusedImport(
                ImportError(line: refused.tag, problem: "its event id \(refused.eventId) is already in the log, at position \(existing)"))
        }
        for kept in content.rows {
            try log.keepRow(kept.row, number: kept.number, stream: kept.stream, version: kept.version, txn)
        }
        for snapshot in content.snapshots {
            try txn.put(log.snapshotsDB, key: snapshot.key, value: snapshot.value)
        }
        for head in heads {
            try txn.put(log.streamsDB, key: Array(head.stream.utf8), value: Keys.littleEndian(UInt64(head.version)))
        }
        try steps.wrote(pages: content.puts.scatteredEventIds)
        if let deferred {
            var named = content.namedStreams.makeIterator()
            var next = named.next()
            for (index, entry) in content.indexEntries.enumerated() {
                while let name = next, name.before == index {
                    deferred.name(name.stream, ordinal: name.ordinal)
                    next = named.next()
                }
                deferred.add(ordinal: entry.ordinal, version: entry.version, position: entry.position)
            }
            if deferred.isFull || content.isLast { try deferred.write(into: log.streamIndexDB, steps: steps) }
        }
        if content.isLast, let spilled {
            // Every stream the import touched, in key order.
            try spilled.forEachStream { stream, version, position, state in
                try steps.willWrite(pages: 1)
                try log.writeHead(state, stream: stream, version: version, position: position, txn)
                try txn.put(log.streamsDB, key: Array(stream.utf8), value: Keys.littleEndian(UInt64(version)))
            }
        }
    }
}

extension LMDBImportSession {
    /// Prepares and writes what `produce` hands its sink, on this thread, which holds the import's
    /// transaction: the streams it continues are read in that transaction (in steps, the current one).
    func importEvents(_ produce: (any EventSink) throws -> Void) throws -> Int {
        let sink = PreparingSink(session: self) { stream in try log.storedStream(stream, txn) }
        try produce(sink)
        try sink.finish()
        return sink.count
    }

    /// Each stream's head, as the pipeline would have kept it.
    package func writeFinalStates(_ states: [StreamHead]) throws {
        for head in states {
            // The heads come in no order: each may change a page of its own.
            try steps.willWrite(pages: 1)
            try log.writeHead(head.state, stream: head.stream, version: head.version, position: head.position, txn)
        }
    }
}

/// What a run of imported events writes to LMDB: their three sorted puts each, the rows they
/// kept and the snapshots they reached.
final class LMDBImportBuilder: ImportBatchBuilder {
    /// Unchecked `Sendable`: its puts are copy-on-write buffers (LMDB's `ByteBuffer`), handed whole from the preparing thread to the writer.
    struct Content: @unchecked Sendable {
        var puts = PendingEventPuts()
        var rows: [(row: KeptRow, number: Int, stream: String, version: Int)] = []
        var snapshots: [(key: [UInt8], value: [UInt8])] = []
        /// How many streams the batch's events belong to (`ImportSteps` counts a page for each).
        var streams = 0
        /// With a deferred stream index, the entries the puts leave out, and the stream of each
        /// ordinal, named before the entry at `before`.
        var indexEntries: [(ordinal: Int, version: Int, position: Int)] = []
        var namedStreams: [(before: Int, ordinal: Int, stream: String)] = []
        /// Whether this is the import's last batch (`takeLast`).
        var isLast = false
    }

    private var content = Content()
    /// The batch that last added an event of each stream slot (for `Content.streams`), and the
    /// stream it was then (for a deferred index).
    private var batchOfSlot: [Int] = []
    private var nameOfSlot: [String] = []
    private var batch = 1
    /// Whether the session writes the stream index itself (`DeferredStreamIndex`).
    private let defersIndex: Bool

    init(defersIndex: Bool) { self.defersIndex = defersIndex }

    var count: Int { content.puts.count }

    func add(_ event: RecordedEvent, record: UnsafeRawBufferPointer, fingerprint: UInt64, line: Int, streamOrdinal: Int) {
        if streamOrdinal >= batchOfSlot.count {
            batchOfSlot += repeatElement(0, count: streamOrdinal + 1 - batchOfSlot.count)
            nameOfSlot += repeatElement("", count: streamOrdinal + 1 - nameOfSlot.count)
        }
        if defersIndex {
            // A batch names each ordinal it uses, again when the preparation gave it to another
            // stream (after setting streams aside).
            if batchOfSlot[streamOrdinal] != batch || nameOfSlot[streamOrdinal] != event.stream {
                nameOfSlot[streamOrdinal] = event.stream
                content.namedStreams.append((content.indexEntries.count, streamOrdinal, event.stream))
            }
            content.puts.addUnindexed(position: event.position, record: record, eventId: event.eventId, fingerprint: fingerprint, tag: line)
            content.indexEntries.append((streamOrdinal, event.version, event.position))
        } else {
            content.puts.add(
                position: event.position, record: record, eventId: event.eventId, stream: event.stream, version: event.version,
                fingerprint: fingerprint, tag: line, run: streamOrdinal)
        }
        if batchOfSlot[streamOrdinal] != batch {
            batchOfSlot[streamOrdinal] = batch
            content.streams += 1
        }
    }

    func addForgotten(_ event: RecordedEvent, record: UnsafeRawBufferPointer, line: Int) {
        content.puts.addForgotten(position: event.position, record: record, eventId: event.eventId, tag: line)
    }

    func keep(_ row: KeptRow, number: Int, stream: String, version: Int) {
        content.rows.append((row, number, stream, version))
    }

    func snapshot(_ state: StreamState, stream: String, version: Int, position: Int) {
        content.snapshots.append((Keys.streamVersion(stream, version), LMDBEventLog.snapshotValue(state, position: position)))
    }

    /// The batch so far, sorted for writing; the next one reserves the room this one needed.
    func take() -> any Sendable {
        var taken = content
        content = Content(puts: PendingEventPuts(reservingLike: taken.puts))
        batch += 1
        taken.puts.sort()
        return taken
    }

    func takeLast() -> any Sendable {
        var last = take() as! Content
        last.isLast = true
        return last
    }
}
