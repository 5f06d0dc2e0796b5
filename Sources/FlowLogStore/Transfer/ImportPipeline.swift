package import FlowLogBasics
import Foundation

/// One import's write transaction, as the pipeline sees it: where the log ends, a builder for its
/// batches, a way to read the streams the import continues, and the writer.
package protocol ImportSession {
    var start: ImportStart { get }
    func makeBuilder() -> any ImportBatchBuilder
    /// Runs `body` on the calling (preparing) thread with a loader that reads a stream as the log
    /// was when the import began: its version and folded state.
    func withStreamLoader(_ body: (@escaping (String) throws -> (version: Int, state: StreamState)) throws -> Void) throws
    /// Writes one prepared batch inside the import's transaction, on the thread that opened it.
    func write(_ content: any Sendable, heads: [(stream: String, version: Int)]) throws
    /// After the last batch: the final state of every stream the import touched.
    func writeFinalStates(_ states: [StreamHead]) throws
    /// Where the preparation sets aside the streams it stops holding; `nil`: it holds them all.
    var streamSpill: (any ImportStreamSpill)? { get }
}

extension ImportSession {
    /// A backend that keeps no heads has nothing to do with them.
    package func writeFinalStates(_ states: [StreamHead]) throws {}

    /// Without a spill the preparation holds every stream it meets.
    package var streamSpill: (any ImportStreamSpill)? { nil }
}

/// Where an import in bounded memory sets aside the streams its preparation stops holding, to take
/// them back when it meets them again: a log of millions of short sessions would otherwise hold a
/// fold of each. The backend writes every touched stream's final state from it
/// (`ImportPreparation.takeLast`), and the preparation hands over no heads.
package protocol ImportStreamSpill: AnyObject {
    /// Keeps `streams` (in stream id order), replacing what it held of them.
    func setAside(_ streams: [(stream: String, version: Int, position: Int, state: StreamState)]) throws
    /// A stream set aside, as it was then; `nil` for one never set aside.
    func takeBack(_ stream: String) throws -> (version: Int, position: Int, state: StreamState)?
    /// Every stream set aside, in stream id order: its id, version, last position and state.
    func forEachStream(_ body: (String, Int, Int, StreamState) throws -> Void) throws
}

/// A backend that imports: it opens the import's one write transaction and hands the session to `body`.
package protocol ImportTarget {
    func withImportSession(expectedBytes: Int, _ body: (any ImportSession) throws -> Int) throws -> Int
}

extension ImportSession {
    /// Writes `batch`, then throws why the import ends after it, if it does.
    func write(_ batch: ImportBatch) throws {
        try write(batch.content, heads: batch.heads)
        if let failure = batch.failure { throw failure }
        if !batch.finalStates.isEmpty { try writeFinalStates(batch.finalStates) }
    }
}

/// `flowlog import`: reads an NDJSON export and loads it into a log in one transaction, whatever its backend.
///
/// Three stages, each on its own thread, hand batches along: one reads and decodes lines, one
/// checks, folds and encodes the events and sorts their puts (`ImportPreparation`, reading the
/// streams the import continues through a read transaction of its own), and the calling thread
/// only writes. A bad line ends the import with its line number, and nothing is committed.
package enum ImportPipeline {
    private struct DecodedBatch {
        var firstLine: Int
        var records: [RecordedEvent] = []
        /// The first line that could not be decoded, and why; the batch ends there.
        var failure: ImportError?
        /// What it weighs while it waits: an event each, and three for an event whose stream's
        /// name is an allocation of its own (longer than a `String`'s 15 inline bytes).
        var weight = 1
    }

    /// The decoded events that may wait for the preparing thread, by weight: twelve chunks of
    /// about 4,000 lines, room for the decoder to run ahead while the preparing thread waits for
    /// the writer (with four chunks, a core sat idle then; sixteen took as long and 13 MB at the
    /// peak of an import of 10M events). Chunks of events whose streams have long names (random
    /// session ids) weigh three times as much, so a third as many wait: their names are
    /// allocations of their own (decisions.md, "Writes of many streams' entries go in bounded
    /// pieces").
    static let decodedWeight = 12 * 4_000

    /// Imports every line `reader` yields into `target`; returns the number of events imported.
    package static func run(
        _ reader: consuming LineReader, into target: any ImportTarget, expectedBytes: Int,
        progress: FlowLogBasics.Progress? = nil
    ) throws -> Int {
        let decoded = Handoff<DecodedBatch>(capacity: decodedWeight) { $0.weight }
        let prepared = Handoff<ImportBatch>(capacity: 2)
        decode(reader, into: decoded)
        // The preparing thread reads the log, so it must be gone before the caller may close it.
        // (The decoding thread only reads input; it ends at the next batch once cancelled.)
        var preparing: DispatchSemaphore?
        defer { preparing?.wait() }
        do {
            let count = try target.withImportSession(expectedBytes: expectedBytes) { session in
                // Started once the write transaction holds the writer's lock, so the preparing
                // thread's read transaction sees the log exactly as this transaction found it.
                preparing = prepare(decoded, into: prepared, session: session)
                var done = 0
                while let batch = try prepared.take() {
                    done += batch.count
                    try session.write(batch)
                    progress?.advance(to: done)
                }
                return done
            }
            progress?.finish()
            return count
        } catch {
            decoded.cancel()
            prepared.cancel()
            throw error
        }
    }

    /// The first stage: lines to records, in batches as the reader reads them.
    private static func decode(_ input: LineReader, into decoded: Handoff<DecodedBatch>) {
        Thread {
            var reader = input
            var lineNumber = 0
            do {
                while try reader.readBatch({ lines in
                    var batch = DecodedBatch(firstLine: lineNumber + 1)
                    batch.records.reserveCapacity(lines.count)
                    for line in lines {
                        lineNumber += 1
                        guard case .text(let bytes) = line else {
                            batch.failure = ImportError(line: lineNumber, problem: "it is longer than \(LineReader.maximumLineLength) bytes")
                            break
                        }
                        do throws(RecordedEventJSON.Problem) {
                            let record = try RecordedEventJSON.decode(bytes)
                            batch.weight += record.stream.utf8.count > 15 ? 3 : 1
                            batch.records.append(record)
                        } catch {
                            batch.failure = ImportError(line: lineNumber, problem: error.message)
                            break
                        }
                    }
                    let failed = batch.failure != nil
                    guard decoded.put(batch), !failed else { throw Handoff<DecodedBatch>.Cancelled() }
                }) {}
                decoded.close(error: nil)
            } catch {
                decoded.close(error: error)
            }
        }.start()
    }

    /// The second stage: records to prepared batches. A line that breaks a rule (or could not be
    /// decoded) ends the last batch, after the lines before it.
    private static func prepare(
        _ decoded: Handoff<DecodedBatch>, into prepared: Handoff<ImportBatch>,
        session: any ImportSession
    ) -> DispatchSemaphore {
        typealias Batch = ImportBatch
        let finished = DispatchSemaphore(value: 0)
        // The session, for the preparing thread. It only reads, through a read context of its own
        // (an LMDB read transaction on that thread), and touches no state of the writer.
        nonisolated(unsafe) let shared = session
        Thread {
            defer { finished.signal() }
            let session = shared
            do {
                try session.withStreamLoader { load in
                    var preparation = ImportPreparation(
                        start: session.start, builder: session.makeBuilder(), loadStream: load,
                        spill: session.streamSpill)
                    func end(after failure: any Error) throws -> Never {
                        _ = prepared.put(preparation.take(failure: failure))
                        throw Handoff<Batch>.Cancelled()
                    }
                    while let batch = try decoded.take() {
                        for (offset, record) in batch.records.enumerated() {
                            do {
                                try preparation.add(record, line: batch.firstLine + offset)
                            } catch {
                                try end(after: error)
                            }
                            if preparation.isFull, !prepared.put(preparation.take()) { throw Handoff<Batch>.Cancelled() }
                        }
                        if let failure = batch.failure { try end(after: FlowLogError.refusedImport(failure)) }
                    }
                    _ = prepared.put(try preparation.takeLast())
                }
                prepared.close(error: nil)
            } catch {
                prepared.close(error: error)
            }
        }.start()
        return finished
    }
}

/// Takes imported events one by one inside the import's transaction, preparing and writing them on
/// the caller's thread (`flowlog import` prepares on a thread of its own: `ImportPipeline`). A
/// refused event has the events before it written first, so the error always names the first bad line.
package final class PreparingSink: EventSink {
    private let session: any ImportSession
    private var preparation: ImportPreparation
    package private(set) var count = 0

    package init(session: any ImportSession, loadStream: @escaping (String) throws -> (version: Int, state: StreamState)) {
        self.session = session
        preparation = ImportPreparation(
            start: session.start, builder: session.makeBuilder(), loadStream: loadStream,
            spill: session.streamSpill)
    }

    package func add(_ record: RecordedEvent, line: Int) throws {
        do {
            try preparation.add(record, line: line)
        } catch {
            try session.write(preparation.take(failure: error))
        }
        count += 1
        if preparation.isFull {
            try session.write(preparation.take())
        }
    }

    package func finish() throws {
        try session.write(try preparation.takeLast())
    }
}
