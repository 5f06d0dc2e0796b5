import FlowDomain
import FlowLogBasics
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogLMDB

/// A log of three interleaved streams, 240 events, written through the pipeline.
private func sampleLog(in folder: TemporaryDirectory) throws -> LMDBEventLog {
    let log = try LMDBEventLog(path: folder.child("log"))
    var rng = SplitMix64(seed: 77)
    let generator = RandomCommands()
    let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
    while try log.lastPosition() < 240 {
        _ = try processor.handle([CommandEnvelope(stream: ["a", "b", "c"].randomElement(using: &rng)!, command: generator.command(using: &rng))])
    }
    return log
}

private func rewrite(_ log: LMDBEventLog, _ body: (Transaction) throws -> Void) throws {
    try log.environment.write { txn in try body(txn) }
}

/// Damage made to an LMDB log from outside, each named where it is. That an untouched log is
/// intact and counts its events and streams is the integrity contract's (`IntegrityContractTests`).
@Suite("Integrity: flowlog verify")
struct IntegrityTests {
    @Test(arguments: [1, 57, 120, 239])
    func aFlippedByteAnywhereInARecordIsNamedWithItsPositionAndStream(position: Int) throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        let stream = try log.events(from: position, limit: 1)[0].stream
        var rng = SplitMix64(seed: UInt64(position))
        try rewrite(log) { txn in
            var bytes = Array(try txn.get(log.eventsDB, key: Keys.position(position))!)
            bytes[Int.random(in: 0..<bytes.count - 8, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            try txn.put(log.eventsDB, key: Keys.position(position), value: bytes)
        }
        let report = try log.checkIntegrity()
        #expect(report.problems.first?.position == position)
        #expect(report.problems.first?.stream == stream || report.problems.first?.stream == nil)
        #expect(report.problems.filter { $0.position > 0 }.count == 1, "one damaged record is reported once: \(report.problems)")
    }

    @Test func aRemovedRecordIsNamed() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        try rewrite(log) { txn in _ = try txn.delete(log.eventsDB, key: Keys.position(100)) }
        let report = try log.checkIntegrity()
        #expect(report.problems.first?.position == 100)
        #expect(report.problems.first?.detail.contains("missing") == true)
    }

    @Test func theLastRecordRemovedIsNoticedByTheIndexes() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        try rewrite(log) { txn in _ = try txn.delete(log.eventsDB, key: Keys.position(240)) }
        #expect(!(try log.checkIntegrity().isIntact))
    }

    @Test func reorderedRecordsAreNamed() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        try rewrite(log) { txn in
            let first = Array(try txn.get(log.eventsDB, key: Keys.position(50))!)
            let second = Array(try txn.get(log.eventsDB, key: Keys.position(51))!)
            try txn.put(log.eventsDB, key: Keys.position(50), value: second)
            try txn.put(log.eventsDB, key: Keys.position(51), value: first)
        }
        #expect(try log.checkIntegrity().problems.first?.position == 50)
    }

    /// A record altered by someone who also recomputed its own checksum: its successor's link breaks.
    @Test func anAlteredRecordWithARecomputedChecksumIsCaughtAtTheNextLink() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        try rewrite(log) { txn in
            let previous = RecordCodec.storedHash(of: try txn.get(log.eventsDB, key: Keys.position(79))!)!
            var record = try RecordCodec.decode(try txn.get(log.eventsDB, key: Keys.position(80))!, expectedPosition: 80, previousHash: previous).0
            record.actor = record.actor == .user ? .system : .user
            var writer = BinaryWriter()
            _ = RecordCodec.encode(record, previousHash: previous, into: &writer)
            try txn.put(log.eventsDB, key: Keys.position(80), value: writer.bytes)
        }
        #expect(try log.checkIntegrity().problems.first?.position == 81)
        #expect(throws: FlowLogError.self) { try log.events() }
    }

    @Test func aStreamIndexThatPointsElsewhereIsNamed() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        let victim = try log.events(from: 30, limit: 1)[0]
        try rewrite(log) { txn in try txn.put(log.streamIndexDB, key: Keys.streamVersion(victim.stream, victim.version), value: Keys.position(31)) }
        let report = try log.checkIntegrity()
        #expect(report.problems.contains { $0.position == 30 && $0.stream == victim.stream })
    }

    /// An intact log is answered from the index digests alone, and gives the report the walk entry
    /// by entry gives; any damage to an index makes the digests differ.
    @Test func theDigestsAnswerForAnIntactLogAndDifferForADamagedIndex() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        let fast = try log.checkIntegrityByDigests(progress: nil)
        let slow = try log.checkIntegrityEntryByEntry(progress: nil, batchSize: 64)
        #expect(fast.report?.isIntact == true)
        #expect(fast.report?.events == slow.events && fast.report?.streams == slow.streams)
        let victim = try log.events(from: 200, limit: 1)[0]
        try rewrite(log) { txn in try txn.put(log.eventIdsDB, key: Keys.eventID(victim.eventId), value: Keys.position(199)) }
        #expect(try log.checkIntegrityByDigests(progress: nil).report == nil, "an event id that points elsewhere changes the digest")
        let report = try log.checkIntegrity()
        #expect(report.problems.contains { $0.position == 200 && $0.detail.contains("event id is indexed at position 199") }, "\(report.problems)")
    }

    /// An entry of the stream index that no event has (a version past the stream's last) is damage
    /// too, though every event finds its own entry.
    @Test func aStreamIndexEntryForNoEventIsReported() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(in: folder)
        let version = try log.version(of: "a")
        try rewrite(log) { txn in try txn.put(log.streamIndexDB, key: Keys.streamVersion("a", version + 1), value: Keys.position(5)) }
        let report = try log.checkIntegrity()
        #expect(report.problems.map(\.detail) == ["the stream index holds 241 entries for 240 events: entries that point at no event"])
    }
}

@Suite("Hostile input")
struct FuzzTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theRecordDecoderNeverCrashesOnRandomOrMutatedBytes(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var writer = BinaryWriter()
        let valid = RandomEvents.everyKind().enumerated().map { index, event -> [UInt8] in
            _ = RecordCodec.encode(sampleRecord(event, position: index + 1), previousHash: 0, into: &writer)
            return writer.bytes
        }
        var decoded = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0..<200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = valid.randomElement(using: &rng)!
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng))) }
            }
            if (try? bytes.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 1, previousHash: 0) }) != nil { decoded += 1 }
        }
        #expect(decoded < 10, "random bytes must not pass the checksum")
    }

    @Test(arguments: [4, 5] as [UInt64])
    func sendAnswersEveryHostileLineAndAppendsNothingForIt(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let valid = #"{"type":"cart.addProduct","stream":"s","productId":"p1","unitPrice":100,"quantity":1}"#
        var lines: [String] = []
        for _ in 0..<3_000 {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: lines.append(String(valid.prefix(Int.random(in: 0..<valid.count, using: &rng))))  // truncated
            case 1:
                lines.append(
                    String(decoding: (0..<Int.random(in: 1...80, using: &rng)).map { _ in UInt8.random(in: 32...255, using: &rng) }, as: UTF8.self))
            case 2:  // one byte changed
                var bytes = Array(valid.utf8)
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 32...126, using: &rng)
                lines.append(String(decoding: bytes, as: UTF8.self))
            case 3: lines.append(String(repeating: "[", count: Int.random(in: 1...5_000, using: &rng)))  // deep nesting
            case 4: lines.append(#"{"type":"cart.addProduct","stream":"s","productId":"p1","unitPrice":1e999,"quantity":1}"#)
            default: lines.append("{\"type\":\"payment.failed\",\"stream\":\"s\",\"reason\":\"\(String(repeating: "\u{1F600}", count: 300))\"}")
            }
        }
        let folder = TemporaryDirectory()
        let path = folder.child("in")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let log = InMemoryEventLog()
        let output = BufferOutput()
        let summary = try SendSession(processor: CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator()), output: output)
            .run(reader: LineReader(fileDescriptor: descriptor))
        let answers = output.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // Every line is answered but the blank ones (a truncation to nothing), which are skipped.
        let commandLines = lines.filter { !$0.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 } }.count
        #expect(answers.count == commandLines)
        #expect(summary.lines == commandLines)
        #expect(try log.lastPosition() == summary.accepted, "only accepted lines append")
        for answer in answers {
            let value = try JSONParser.parse(String(answer))
            if value["ok"] == .bool(false) { #expect(value["error"]?["code"] != nil) }
        }
    }
}
