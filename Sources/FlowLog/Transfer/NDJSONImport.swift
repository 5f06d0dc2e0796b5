import Foundation
import LMDB

/// `flowlog import`: reads an NDJSON export and loads it into a log in one transaction.
///
/// Three stages, each on its own thread, hand batches along: one reads and decodes lines, one
/// checks, folds and encodes the events and sorts their puts (`ImportPreparation`, reading the
/// streams the import continues through a read transaction of its own), and the calling thread
/// only writes. A bad line ends the import with its line number, and nothing is committed.
public enum NDJSONImport {
    private struct DecodedBatch {
        var firstLine: Int
        var records: [RecordedEvent] = []
        /// The first line that could not be decoded, and why; the batch ends there.
        var failure: ImportError?
    }

    private final class ReaderBox: @unchecked Sendable {
        var reader: LineReader
        init(_ reader: consuming LineReader) { self.reader = reader }
    }

    /// The log, for the preparing thread. It only reads, through a read transaction of its own:
    /// LMDB's environment serves transactions on several threads, and reading touches no state of
    /// the log object itself.
    private struct ReadingLog: @unchecked Sendable {
        let log: LMDBEventLog
    }

    /// Imports every line `reader` yields; returns the number of events imported.
    public static func run(into log: LMDBEventLog, reader: consuming LineReader, expectedBytes: Int, progress: Progress? = nil) throws -> Int {
        // Sixteen chunks of about 4,000 lines: room for the decoder to run ahead while the preparing
        // thread waits for the writer (with 4, a core sat idle then; medians 0.63-0.64 s against
        // 0.64-0.67 s over two rounds of imports of 1M events).
        let decoded = Handoff<DecodedBatch>(capacity: 16)
        let prepared = Handoff<PreparedImportBatch>(capacity: 2)
        decode(ReaderBox(reader), into: decoded)
        // The preparing thread reads the log, so it must be gone before the caller may close it.
        // (The decoding thread only reads input; it ends at the next batch once cancelled.)
        var preparing: DispatchSemaphore?
        defer { preparing?.wait() }
        do {
            let count = try log.importTransaction(expectedBytes: expectedBytes) { txn, start in
                // Started once the write transaction holds the writer's lock, so the preparing
                // thread's read transaction sees the log exactly as this transaction found it.
                preparing = prepare(decoded, into: prepared, log: log, start: start)
                var done = 0
                while var batch = try prepared.take() {
                    done += batch.count
                    try log.write(&batch, txn)
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
    private static func decode(_ input: ReaderBox, into decoded: Handoff<DecodedBatch>) {
        Thread {
            var lineNumber = 0
            do {
                while try input.reader.readBatch({ lines in
                    var batch = DecodedBatch(firstLine: lineNumber + 1)
                    batch.records.reserveCapacity(lines.count)
                    for line in lines {
                        lineNumber += 1
                        guard case .text(let bytes) = line else {
                            batch.failure = ImportError(line: lineNumber, problem: "it is longer than \(LineReader.maximumLineLength) bytes")
                            break
                        }
                        do throws(RecordedEventJSON.Problem) {
                            batch.records.append(try RecordedEventJSON.decode(bytes))
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
    private static func prepare(_ decoded: Handoff<DecodedBatch>, into prepared: Handoff<PreparedImportBatch>,
                                log: LMDBEventLog, start: ImportStart) -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        let shared = ReadingLog(log: log)
        Thread {
            defer { finished.signal() }
            let log = shared.log
            do {
                try log.reading { txn in
                    var preparation = ImportPreparation(start: start) { stream in try log.storedStream(stream, txn) }
                    func end(after failure: Error) throws -> Never {
                        var last = preparation.take()
                        last.failure = failure
                        _ = prepared.put(last)
                        throw Handoff<PreparedImportBatch>.Cancelled()
                    }
                    while let batch = try decoded.take() {
                        for (offset, record) in batch.records.enumerated() {
                            do {
                                try preparation.add(record, line: batch.firstLine + offset)
                            } catch {
                                try end(after: error)
                            }
                            if preparation.isFull, !prepared.put(preparation.take()) { throw Handoff<PreparedImportBatch>.Cancelled() }
                        }
                        if let failure = batch.failure { try end(after: FlowLogError.refusedImport(failure)) }
                    }
                    _ = prepared.put(preparation.takeLast())
                }
                prepared.close(error: nil)
            } catch {
                prepared.close(error: error)
            }
        }.start()
        return finished
    }
}
