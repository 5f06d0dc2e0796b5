import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogLMDB

/// Log schema 4: a commit's stream-index entries and kept rows wait in one batch record until a
/// fold moves them into the indexes. Whatever is pending, folded or half folded, every read answers
/// as it would from the indexes alone.
@Suite("Batch records")
struct BatchRecordTests {
    static let never = FoldPolicy(events: 1_000_000_000, records: 1_000_000_000)
    /// After every commit, two streams per transaction: every fold runs in several ranges.
    static let always = FoldPolicy(events: 1, records: 1, streamsPerTransaction: 2)

    /// Ten sessions placing orders, interleaved, in commits of 45 commands; `rounds` orders each.
    static func commands(rounds: Int, streams: Int = 10, from first: Int = 1) -> [CommandEnvelope] {
        (first..<(first + rounds)).flatMap { round in
            (0..<streams).flatMap { session in
                [
                    CommandEnvelope(
                        stream: "s\(session)",
                        command: .cart(.addProduct(.init(productId: "p\(round % 3)", name: nil, unitPrice: 100 + round, quantity: 1, currency: nil)))),
                    CommandEnvelope(stream: "s\(session)", command: .cart(.checkout)),
                    CommandEnvelope(stream: "s\(session)", command: .payment(.succeeded(.init(orderId: "o\(session)-\(round)")))),
                ]
            }
        }
    }

    static func send(_ commands: [CommandEnvelope], to log: LMDBEventLog, idsAfter: Int = 0) throws {
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: UInt64(idsAfter)))
        for start in stride(from: 0, to: commands.count, by: 45) {
            let outcomes = try processor.handle(Array(commands[start..<min(start + 45, commands.count)]))
            try #require(outcomes.allSatisfy { if case .accepted = $0 { true } else { false } })
        }
    }

    static func log(_ folder: TemporaryDirectory, _ name: String, _ policy: FoldPolicy) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: folder.child(name), foldPolicy: policy)
        try log.setSnapshotInterval(7)
        return log
    }

    static func pendingRecords(_ log: LMDBEventLog) throws -> Int {
        try log.reading { txn in try txn.count(try #require(log.batchesDB)) }
    }

    /// Everything a reader can ask of a log, in one comparable value.
    struct Answers: Equatable {
        var events: [RecordedEvent] = []
        var streams: [String: [RecordedEvent]] = [:]
        var states: [StreamState] = []
        var versions: [Int] = []
        var lastVersions: [RecordedEvent?] = []
        var rows: [[Order]?] = []
    }

    static func answers(_ log: LMDBEventLog) throws -> Answers {
        var answers = Answers()
        try log.forEachEvent(from: 1, through: nil) {
            answers.events.append($0)
            return true
        }
        let last = try log.lastPosition()
        for (stream, version) in try log.streams() {
            try log.forEachEvent(inStream: stream, throughPosition: nil) {
                answers.streams[stream, default: []].append($0)
                return true
            }
            for position in stride(from: 1, through: last, by: max(1, last / 13)) + [last] {
                let (state, at) = try log.streamState(ofStream: stream, throughPosition: position)
                answers.states.append(state)
                answers.versions.append(at)
            }
            answers.lastVersions.append(try log.event(inStream: stream, version: version))
            answers.lastVersions.append(try log.event(inStream: stream, version: max(1, version / 2)))
            answers.rows.append(
                try log.reading { txn in
                    let pending = try PendingIndex.load(log, txn)
                    return try log.keptRows(of: stream, count: try log.keptRowCount(of: stream, pending, txn), pending, txn)?.rows
                })
        }
        return answers
    }

    @Test func pendingRecordsAndFoldedOnesReadTheSame() throws {
        let folder = TemporaryDirectory()
        let pending = try Self.log(folder, "pending", Self.never)
        let folded = try Self.log(folder, "folded", Self.always)
        let commands = Self.commands(rounds: 12)
        try Self.send(commands, to: pending)
        try Self.send(commands, to: folded)
        #expect(try Self.pendingRecords(pending) == (commands.count + 44) / 45)
        #expect(try Self.pendingRecords(folded) == 0)
        #expect(try pending.reading { txn in try txn.count(pending.streamIndexDB) } == 0)
        let expected = try Self.answers(folded)
        #expect(expected.rows.allSatisfy { $0?.count == 12 })
        #expect(try Self.answers(pending) == expected)
        #expect(try pending.checkIntegrity(progress: nil).isIntact)
        #expect(try folded.checkIntegrity(progress: nil).isIntact)
        // A fold of everything pending leaves the same answers, and nothing pending.
        try pending.foldPending()
        #expect(try Self.pendingRecords(pending) == 0)
        #expect(try Self.answers(pending) == expected)
        #expect(try pending.checkIntegrity(progress: nil).isIntact)
    }

    /// A fold killed between two of its range transactions leaves some streams folded and others
    /// not; commits made meanwhile add records after the fold's. Reads, verify and the next fold
    /// all carry on from the progress in `meta`.
    @Test func aFoldStoppedBetweenRangesReadsTheSame() throws {
        let folder = TemporaryDirectory()
        let reference = try Self.log(folder, "reference", Self.always)
        let log = try Self.log(folder, "log", Self.never)
        let first = Self.commands(rounds: 6)
        try Self.send(first, to: log)
        try Self.send(first, to: reference)
        // Two ranges of three streams, as a killed fold leaves them.
        for _ in 0..<2 { #expect(try log.environment.write { txn in try log.foldStep(txn, streamLimit: 3) } == false) }
        #expect(try log.reading { txn in try txn.get(log.meta, key: PendingIndex.progressKey) != nil })
        #expect(try Self.answers(log) == (try Self.answers(reference)))
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        let more = Self.commands(rounds: 2, from: 7)
        try Self.send(more, to: log, idsAfter: 10_000)
        try Self.send(more, to: reference, idsAfter: 10_000)
        #expect(try Self.answers(log) == (try Self.answers(reference)))
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        // The rest of the fold: the records it began with go; those after it stay pending.
        var steps = 0
        while try log.environment.write({ txn in try log.foldStep(txn, streamLimit: 3) }) == false { steps += 1 }
        #expect(steps >= 1)
        #expect(try log.reading { txn in try txn.get(log.meta, key: PendingIndex.progressKey) == nil })
        #expect(try Self.pendingRecords(log) == 0)
        #expect(try Self.answers(log) == (try Self.answers(reference)))
        #expect(try log.checkIntegrity(progress: nil).isIntact)
    }

    @Test func verifyNamesABatchRecordWhoseBytesChanged() throws {
        let folder = TemporaryDirectory()
        let log = try Self.log(folder, "log", Self.never)
        try Self.send(Self.commands(rounds: 3), to: log)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        // One position in the second record points elsewhere.
        let key = try log.environment.write { txn -> Int in
            let database = try #require(log.batchesDB)
            let (key, value) = try #require(
                try txn.withCursor(database) { cursor in
                    _ = try cursor.first()
                    return try cursor.next().map { (Array($0.key), Array($0.value)) }
                })
            var changed = value
            let record = try #require(
                BatchRecordView(key: 0, bytes: UnsafeRawBufferPointer(start: value.withUnsafeBytes { $0.baseAddress }, count: value.count)))
            let entry = try #require(record.stream(at: 0))
            let offset = value.withUnsafeBytes { entry.positions.baseAddress! - $0.baseAddress! }
            changed[offset] ^= 1
            try txn.put(database, key: key, value: changed)
            return Keys.decodePosition(key.withUnsafeBytes { $0 })
        }
        let report = try log.checkIntegrity(progress: nil)
        #expect(!report.isIntact)
        #expect(report.problems.contains { $0.position == key && $0.detail.contains("does not match its checksum") }, "\(report.problems)")
        #expect(report.problems.contains { $0.detail.contains("stream index") }, "\(report.problems)")
    }

    /// A log of schema 3 is written as builds before schema 4 write it; raised, it takes records.
    @Test func aSchema3LogKeepsItsIndexesUntilUpgraded() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try FileManager.default.copyItem(atPath: FlowLogProcess.fixtures.appendingPathComponent("logs/schema-3").path, toPath: path)
        let log = try LMDBEventLog(path: path, foldPolicy: Self.never)
        #expect(try log.settings().logSchema == 3)
        try Self.send(Self.commands(rounds: 2), to: log, idsAfter: 1_000_000)
        #expect(try Self.pendingRecords(log) == 0)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        _ = try log.updateSettings { settings, _ in
            var raised = settings
            raised.logSchema = LogSettings.newestLogSchema
            return raised
        }
        #expect(try log.settings().logSchema == LogSettings.newestLogSchema)
        try Self.send(Self.commands(rounds: 2, from: 3), to: log, idsAfter: 2_000_000)
        #expect(try Self.pendingRecords(log) > 0)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        #expect(try log.state(ofStream: "s4", throughPosition: nil).state.orders.count == 4)
    }

    /// `Fixtures/logs/schema-4` (make-schema-4.sh) holds folded entries and pending records both.
    @Test func theSchema4FixtureHoldsIndexedAndPendingEntries() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try FileManager.default.copyItem(atPath: FlowLogProcess.fixtures.appendingPathComponent("logs/schema-4").path, toPath: path)
        let log = try LMDBEventLog(path: path, access: .readOnly)
        #expect(try log.settings().logSchema == 4)
        #expect(try Self.pendingRecords(log) == 33)
        #expect(try log.reading { txn in try txn.count(log.streamIndexDB) } == 33)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        #expect(try log.state(ofStream: "usd", throughPosition: nil).state.orders.count == 3)
    }

    @Test func aLogOfALaterSchemaIsRefused() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        do {
            let log = try LMDBEventLog(path: path)
            try log.environment.write { txn in
                try txn.put(log.meta, key: LMDBEventLog.schemaKey, value: Keys.littleEndian(UInt64(LogSettings.newestLogSchema + 1)))
            }
        }
        #expect(throws: FlowLogError.newerSchema(path: path, found: LogSettings.newestLogSchema + 1, supported: LogSettings.newestLogSchema)) {
            try LMDBEventLog(path: path)
        }
    }

    /// Forget and import fold first: afterwards nothing is pending and the log reads as before.
    @Test func forgetFoldsWhatIsPending() throws {
        let folder = TemporaryDirectory()
        let log = try Self.log(folder, "log", Self.never)
        try Self.send(Self.commands(rounds: 3), to: log)
        #expect(try Self.pendingRecords(log) > 0)
        _ = try log.forget(streams: ["s3"], lastEventBefore: nil) { _ in nil }
        #expect(try Self.pendingRecords(log) == 0)
        #expect(try log.version(of: "s3") == 0)
        #expect(try log.state(ofStream: "s4", throughPosition: nil).state.orders.count == 3)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
    }
}

extension FoldPolicy {
    /// For tests that change the stream index or kept rows by hand, as logs before schema 4 (or
    /// damage) left them: every commit's entries are in the indexes when it returns.
    static let foldingEveryCommit = FoldPolicy(events: 1, records: 1)
}
