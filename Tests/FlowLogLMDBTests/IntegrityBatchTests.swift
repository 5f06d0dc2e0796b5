import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogLMDB

/// `verify` reads the indexes a batch at a time; whatever the damage, it must report exactly what
/// the check record by record reported (kept here as the reference), at any batch size.
@Suite("Integrity: batched index checks")
struct IntegrityBatchTests {
    /// `checkIntegrity` as it was before the batches: two index lookups as each record is read.
    private func reference(_ log: LMDBEventLog) throws -> IntegrityReport {
        var report = IntegrityReport()
        func note(_ position: Int, _ stream: String?, _ detail: String) { report.note(position, stream, detail) }
        try log.reading { txn in
            var versions: [String: Int] = [:]
            var previousHash = RecordCodec.genesisHash
            var expected = 1
            func streamHolding(_ position: Int, guess: String?) throws -> String? {
                func holds(_ stream: String) throws -> Bool {
                    guard let entry = try txn.get(log.streamIndexDB, key: Keys.streamVersion(stream, (versions[stream] ?? 0) + 1)) else {
                        return false
                    }
                    return Keys.decodePosition(entry) == position
                }
                if let guess, try holds(guess) { return guess }
                for (stream, _) in try log.streams() where try holds(stream) { return stream }
                return nil
            }
            try txn.withCursor(log.eventsDB) { cursor in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    let position = Keys.decodePosition(key)
                    if position != expected {
                        note(
                            expected, nil, position > expected ? "missing (positions \(expected)…\(position - 1) are not in the log)" : "out of order"
                        )
                    }
                    do {
                        let (record, hash) = try RecordCodec.decode(value, expectedPosition: position, previousHash: previousHash)
                        previousHash = hash
                        report.events += 1
                        let last = versions[record.stream] ?? 0
                        if record.version != last + 1 {
                            note(position, record.stream, "it is version \(record.version) of its stream, which was at version \(last)")
                        }
                        versions[record.stream] = max(last, record.version)
                        if let index = try txn.get(log.streamIndexDB, key: Keys.streamVersion(record.stream, record.version)) {
                            if Keys.decodePosition(index) != position {
                                note(
                                    position, record.stream,
                                    "the stream index puts version \(record.version) at position \(Keys.decodePosition(index))")
                            }
                        } else {
                            note(position, record.stream, "the stream index has no entry for version \(record.version)")
                        }
                        if let indexed = try txn.get(log.eventIdsDB, key: Keys.eventID(record.eventId)) {
                            if Keys.decodePosition(indexed) != position {
                                note(position, record.stream, "its event id is indexed at position \(Keys.decodePosition(indexed))")
                            }
                        } else {
                            note(position, record.stream, "its event id \(record.eventId) is not in the event id index")
                        }
                    } catch let damage as RecordDamage {
                        report.events += 1
                        let readable = RecordCodec.decodeUnverified(value, position: position)
                        let owner = try streamHolding(position, guess: readable?.stream)
                        if let owner { versions[owner] = (versions[owner] ?? 0) + 1 }
                        note(position, damage.stream ?? owner ?? readable?.stream, damage.problem)
                        previousHash = RecordCodec.storedHash(of: value) ?? previousHash
                    }
                    expected = position + 1
                    entry = try cursor.next()
                }
            }
            for (stream, head) in try log.streams() {
                if versions[stream] != head {
                    note(0, stream, "the stream's stored version is \(head), but its events go up to version \(versions[stream] ?? 0)")
                }
                versions[stream] = nil
                report.streams += 1
            }
            // In stream id order (the reference's dictionary gave none).
            for (stream, version) in versions.sorted(by: { $0.key < $1.key }) {
                note(0, stream, "the stream has events up to version \(version) but no stored version")
            }
            let indexedIds = try txn.count(log.eventIdsDB)
            if indexedIds != report.events {
                note(0, nil, "the event id index holds \(indexedIds) ids for \(report.events) events (an event was removed, or an index entry)")
            }
        }
        return report
    }

    /// Unique ids in no order at all (an odd multiplier is a bijection of 64-bit numbers), as an
    /// import of another system's events may bring them.
    private struct ScrambledIDs: EventIDGenerator {
        var counter: UInt64 = 0
        mutating func next() -> EventID {
            counter += 1
            return EventID(high: counter &* 0x9E37_79B9_7F4A_7C15, low: counter)
        }
    }

    private func sampleLog(_ path: String, seed: UInt64, scrambledIds: Bool = false) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: path, foldPolicy: .foldingEveryCommit)
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        let processor =
            scrambledIds
            ? CommandProcessor(log: log, clock: SteppingClock(), ids: ScrambledIDs())
            : CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let streams = ["a", "b", "c", "d", "e", "f", "g"]
        while try log.lastPosition() < 300 {
            _ = try processor.handle(
                (0..<4).map { _ in CommandEnvelope(stream: streams.randomElement(using: &rng)!, command: generator.command(using: &rng)) })
        }
        return log
    }

    /// One of the kinds of damage `verify` names, somewhere random.
    private func damage(_ log: LMDBEventLog, _ rng: inout SplitMix64) throws {
        let last = try log.lastPosition()
        let position = Int.random(in: 1...last, using: &rng)
        // Earlier damage may stop the read: the damages that need the event are then passed over.
        let victim = (try? log.events(from: position, limit: 1))?.first
        let other = Int.random(in: 1...last, using: &rng)
        try log.environment.write { txn in
            switch Int.random(in: 0..<11, using: &rng) {
            case 0:
                var bytes = Array(try txn.get(log.eventsDB, key: Keys.position(position))!)
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
                try txn.put(log.eventsDB, key: Keys.position(position), value: bytes)
            case 1: _ = try txn.delete(log.eventsDB, key: Keys.position(position))
            case 2:
                let first = Array(try txn.get(log.eventsDB, key: Keys.position(position))!)
                let second = Array(try txn.get(log.eventsDB, key: Keys.position(other))!)
                try txn.put(log.eventsDB, key: Keys.position(position), value: second)
                try txn.put(log.eventsDB, key: Keys.position(other), value: first)
            case 3:
                if let victim { try txn.put(log.streamIndexDB, key: Keys.streamVersion(victim.stream, victim.version), value: Keys.position(other)) }
            case 4: if let victim { _ = try txn.delete(log.streamIndexDB, key: Keys.streamVersion(victim.stream, victim.version)) }
            case 5: if let victim { _ = try txn.delete(log.eventIdsDB, key: Keys.eventID(victim.eventId)) }
            case 6: if let victim { try txn.put(log.eventIdsDB, key: Keys.eventID(victim.eventId), value: Keys.position(other)) }
            case 7: if let victim { try txn.put(log.streamsDB, key: Array(victim.stream.utf8), value: Keys.littleEndian(UInt64(other))) }
            case 8: if let victim { _ = try txn.delete(log.streamsDB, key: Array(victim.stream.utf8)) }
            case 9: if let victim { try txn.put(log.streamIndexDB, key: Keys.streamVersion(victim.stream, victim.version), value: [1, 2, 3]) }
            default: _ = try txn.delete(log.eventsDB, key: Keys.position(last))
            }
        }
    }

    /// Seeds 1…24 with ids in position order, 25…32 with ids in no order at all (the walk sorts each
    /// batch by id before it reads the id index).
    @Test(arguments: 1...32)
    func batchedChecksReportWhatTheRecordByRecordCheckDid(seed: Int) throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(folder.child("log"), seed: UInt64(seed), scrambledIds: seed > 24)
        var rng = SplitMix64(seed: UInt64(seed) &* 7_919)
        for _ in 0..<Int.random(in: 1...3, using: &rng) { try damage(log, &rng) }
        let expected = try reference(log)
        #expect(!expected.isIntact)
        for batchSize in [1, 7, 64, IntegrityWalk.defaultBatchSize] {
            let report = try log.checkIntegrity(progress: nil, batchSize: batchSize)
            #expect(report.events == expected.events && report.streams == expected.streams)
            // The fingerprint runs are checked as well now (a removed last record leaves its fingerprint behind).
            let kept = report.problems.filter { !$0.detail.contains("state fingerprints are recorded") }
            #expect(kept.map(\.description) == expected.problems.map(\.description), "batches of \(batchSize)")
            // A walk that holds no stream finds the damage too (a damaged stream index may make it
            // name other records' versions than the walk that holds them).
            let bounded = try log.checkIntegrity(progress: nil, batchSize: batchSize, mostStreamsHeld: 0)
            #expect(!bounded.isIntact && bounded.events == expected.events && bounded.streams == expected.streams)
        }
    }

    @Test(arguments: [false, true])
    func anIntactLogAgreesAtEveryBatchSize(scrambledIds: Bool) throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(folder.child("log"), seed: 99, scrambledIds: scrambledIds)
        for batchSize in [1, 2, 5, 300, 301] {
            for mostStreamsHeld in [IntegrityWalk.defaultMostStreamsHeld, 0] {
                let report = try log.checkIntegrity(progress: nil, batchSize: batchSize, mostStreamsHeld: mostStreamsHeld)
                #expect(report.isIntact, "\(report.problems)")
                #expect(report.events == (try log.lastPosition()) && report.streams == 7)
                let slow = try log.checkIntegrityEntryByEntry(progress: nil, batchSize: batchSize, mostStreamsHeld: mostStreamsHeld)
                #expect(slow.isIntact, "\(slow.problems)")
            }
        }
    }

    @Test func malformedFingerprintRunsAreNamed() throws {
        let folder = TemporaryDirectory()
        let log = try sampleLog(folder.child("log"), seed: 5)
        let last = try log.lastPosition()
        let fingerprintsDB = try #require(log.fingerprintsDB)
        try log.environment.write { txn in
            let first = Array(try txn.get(fingerprintsDB, key: Keys.position(1))!)
            try txn.put(fingerprintsDB, key: Keys.position(1), value: Array(first.dropLast(3)))
            try txn.put(fingerprintsDB, key: Keys.position(last + 1), value: Array(repeating: 0, count: 16))
            try txn.put(fingerprintsDB, key: [1, 2, 3], value: Array(repeating: 0, count: 8))
        }
        let problems = try log.checkIntegrity().problems.map(\.description)
        #expect(problems.contains { $0.hasPrefix("position 1: the state fingerprints recorded from this position are") })
        #expect(
            problems.contains {
                $0.hasPrefix("position \(last + 1): state fingerprints are recorded from this position through position \(last + 2)")
            })
        #expect(problems.contains { $0.contains("holds a key of 3 bytes") })
        #expect(problems.count == 3, "\(problems)")
    }
}
