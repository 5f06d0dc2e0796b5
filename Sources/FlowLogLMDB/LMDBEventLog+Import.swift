import FlowLog
import LMDB

/// Imports into LMDB: one write transaction for the whole import (all or nothing), fed by the
/// core's import pipeline. The preparing thread sorts each batch's puts, so the writing thread
/// only writes.
extension LMDBEventLog: EventImporting, ImportTarget {
    public func importNDJSON(from reader: consuming LineReader, expectedBytes: Int, progress: Progress?) throws -> Int {
        try ImportPipeline.run(reader, into: self, expectedBytes: expectedBytes, progress: progress)
    }

    /// Loads events as they were recorded elsewhere, keeping their positions, versions and ids, in one
    /// write transaction: all of them or none. The first event must follow the log's last position,
    /// each stream's versions must continue where the log has them, and no event id may be in the
    /// log already; the first that breaks a rule ends the import naming its line.
    public func importEvents(_ produce: (any EventSink) throws -> Void) throws -> Int {
        try withImportSession(expectedBytes: 0) { session in
            let txn = (session as! LMDBImportSession).txn
            let sink = PreparingSink(session: session) { stream in try self.storedStream(stream, txn) }
            try produce(sink)
            try sink.finish()
            return sink.count
        }
    }

    /// The one write transaction of an import.
    package func withImportSession(expectedBytes: Int, _ body: (any ImportSession) throws -> Int) throws -> Int {
        if expectedBytes > 0 {
            // An import reads its input once, so it cannot be replayed after a full map: size the map first.
            let used = try reading { txn in try txn.count(eventsDB) } * 256
            try environment.ensureMapSize(atLeast: used + expectedBytes * 3 + (64 << 20))
        }
        do {
            return try environment.write(retryingWhenMapIsFull: false, aroundCommit: { CommitWriteback.around($0, in: environment) }) { txn in
                let (position, hash) = try head(txn)
                let start = ImportStart(position: position, hash: hash, snapshotInterval: try storedSnapshotInterval(txn),
                                        layout: try recordLayout(txn))
                return try body(LMDBImportSession(log: self, txn: txn, start: start))
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
/// through a read transaction of that thread: it begins after this transaction took the writer's
/// lock, so it sees the log exactly as this transaction found it.
package struct LMDBImportSession: ImportSession {
    let log: LMDBEventLog
    let txn: Transaction
    package let start: ImportStart

    package func makeBuilder() -> any ImportBatchBuilder { LMDBImportBuilder() }

    package func withStreamLoader(_ body: (@escaping (String) throws -> (version: Int, state: StreamState)) throws -> Void) throws {
        let log = self.log
        try log.reading { txn in try body { stream in try log.storedStream(stream, txn) } }
    }

    /// Writes a prepared batch. An event id the log already holds ends the import first, naming the
    /// earliest line that repeats one: those lines come before whatever ended the batch.
    package func write(_ prepared: any Sendable, heads: [(stream: String, version: Int)]) throws {
        var content = prepared as! LMDBImportBuilder.Content
        if let refused = try content.puts.write(to: log, txn) {
            let existing = try txn.get(log.eventIdsDB, key: Keys.eventID(refused.eventId)).map(Keys.decodePosition) ?? 0
            throw FlowLogError.refusedImport(ImportError(line: refused.tag, problem: "its event id \(refused.eventId) is already in the log, at position \(existing)"))
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
    }
}

extension LMDBImportSession {
    /// Each stream's head, as the pipeline would have kept it.
    package func writeFinalStates(_ states: [StreamHead]) throws {
        for head in states { try log.writeHead(head.state, stream: head.stream, version: head.version, position: head.position, txn) }
    }
}

/// What a run of imported events writes to LMDB: their three sorted puts each, the rows they
/// kept and the snapshots they reached.
final class LMDBImportBuilder: ImportBatchBuilder {
    struct Content: @unchecked Sendable {
        var puts = PendingEventPuts()
        var rows: [(row: KeptRow, number: Int, stream: String, version: Int)] = []
        var snapshots: [(key: [UInt8], value: [UInt8])] = []
    }

    private var content = Content()

    var count: Int { content.puts.count }

    func add(_ event: RecordedEvent, record: UnsafeRawBufferPointer, fingerprint: UInt64, line: Int, streamOrdinal: Int) {
        content.puts.add(position: event.position, record: record, eventId: event.eventId, stream: event.stream, version: event.version,
                         fingerprint: fingerprint, tag: line, run: streamOrdinal)
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
        taken.puts.sort()
        return taken
    }
}
