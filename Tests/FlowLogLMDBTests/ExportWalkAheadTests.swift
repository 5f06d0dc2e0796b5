import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog
@testable import FlowLogHistory
@testable import FlowLogLMDB

/// A whole-log export reads on a second thread (`WalkAhead`) while the first formats: the lines,
/// their order, a damaged record's error and a failing output must be what the one-thread
/// export gave, and the walk must end with the export, whatever ends it.
@Suite("Export: reading ahead on a second thread")
struct ExportWalkAheadTests {
    /// Several of the walk's batches (1,024 events each), and a last one that is not full.
    private static let eventCount = 5_500

    private func filledLog(_ folder: TemporaryDirectory) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: folder.child("log"))
        var rng = SplitMix64(seed: 11)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 0))
        while try log.lastPosition() < Self.eventCount {
            _ = try processor.handle(
                (0..<50).map { _ in
                    CommandEnvelope(stream: "s\(Int.random(in: 0..<40, using: &rng))", command: generator.command(using: &rng))
                })
        }
        return log
    }

    /// The export as the one-thread writer makes it, event by event in position order.
    private func expectedLines(_ log: LMDBEventLog) throws -> String {
        var json = JSONWriter()
        for record in try log.events() {
            FlowJSON.writeEvent(record, into: &json)
            json.newline()
        }
        return json.text
    }

    @Test func givenManyBatchesWhenExportedThenEveryLineIsTheOneThreadWritersInPositionOrder() throws {
        let folder = TemporaryDirectory()
        let log = try filledLog(folder)
        let output = BufferOutput()
        let written = try EventExport(format: .ndjson).run(from: log, to: output)
        #expect(written == (try log.lastPosition()))
        #expect(output.text == (try expectedLines(log)))
    }

    @Test func givenARangeWhenExportedThenItStopsAtTheRangesEndMidBatch() throws {
        let folder = TemporaryDirectory()
        let log = try filledLog(folder)
        var filter = ExportFilter()
        filter.fromPosition = 1_000
        filter.toPosition = 2_500
        let output = BufferOutput()
        try EventExport(format: .ndjson, filter: filter).run(from: log, to: output)
        let positions = output.text.split(separator: "\n").map { line in
            Int(line.split(separator: ",")[0].dropFirst(#"{"position":"#.count))!
        }
        #expect(positions == Array(1_000...2_500))
    }

    @Test func givenADamagedRecordPastTheFirstBatchWhenExportedThenTheWalksErrorNamesIt() throws {
        let folder = TemporaryDirectory()
        let log = try filledLog(folder)
        try log.environment.write { txn in
            var bytes = Array(try txn.get(log.eventsDB, key: Keys.position(3_000))!)
            bytes[bytes.count / 2] ^= 0x10
            try txn.put(log.eventsDB, key: Keys.position(3_000), value: bytes)
        }
        let output = BufferOutput()
        #expect {
            try EventExport(format: .ndjson).run(from: log, to: output)
        } throws: { error in
            guard case FlowLogError.damaged(let damage) = error else { return false }
            return damage.position == 3_000
        }
        let lines = output.text.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count < 3_000, "nothing at or after the damaged record is written")
    }

    @Test func givenAnOutputThatFailsWhenExportedThenItsErrorEndsTheExportAndTheWalk() throws {
        let folder = TemporaryDirectory()
        let log = try filledLog(folder)
        struct Full: Error {}
        final class FullDisk: OutputSink {
            var writes = 0
            func write(_ bytes: [UInt8]) throws {
                writes += 1
                throw Full()
            }
        }
        let sink = FullDisk()
        #expect(throws: Full.self) { try EventExport(format: .ndjson).run(from: log, to: sink) }
        #expect(sink.writes == 1)
        // The walk's read transaction is gone: a writer and a second export proceed.
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1_000_000))
        let before = try log.lastPosition()
        _ = try processor.handle([
            CommandEnvelope(stream: "after", command: .cart(.addProduct(.init(productId: "p1", name: "Mug", unitPrice: 300, quantity: 1))))
        ])
        #expect(try log.lastPosition() == before + 1)
        let output = BufferOutput()
        #expect(try EventExport(format: .ndjson).run(from: log, to: output) == (try log.lastPosition()))
    }
}
