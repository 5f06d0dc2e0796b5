import Foundation

/// `flowlog import`: reads an NDJSON export and loads it into a log in one transaction.
///
/// A second thread reads and decodes lines while this one writes the previous batch into the
/// transaction; a bad line ends the import with its line number, and nothing is committed.
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

    /// Imports every line `reader` yields; returns the number of events imported.
    public static func run(into log: LMDBEventLog, reader: consuming LineReader, expectedBytes: Int, progress: Progress? = nil) throws -> Int {
        let handoff = Handoff<DecodedBatch>(capacity: 4)
        let input = ReaderBox(reader)
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
                        switch Result(catching: { () throws(RecordedEventJSON.Problem) -> RecordedEvent in try RecordedEventJSON.decode(bytes) }) {
                        case .success(let record): batch.records.append(record)
                        case .failure(let problem): batch.failure = ImportError(line: lineNumber, problem: problem.message)
                        }
                        if batch.failure != nil { break }
                    }
                    let failed = batch.failure != nil
                    guard handoff.put(batch), !failed else { throw Handoff<DecodedBatch>.Cancelled() }
                }) {}
                handoff.close(error: nil)
            } catch {
                handoff.close(error: error)
            }
        }.start()
        do {
            var done = 0
            let count = try log.importEvents(expectedBytes: expectedBytes) { sink in
                while let batch = try handoff.take() {
                    for (offset, record) in batch.records.enumerated() {
                        try sink.add(record, line: batch.firstLine + offset)
                    }
                    if let failure = batch.failure { throw failure }
                    done += batch.records.count
                    progress?.advance(to: done)
                }
            }
            progress?.finish()
            return count
        } catch {
            handoff.cancel()
            throw error
        }
    }
}
