import FlowDomain
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogLMDB

/// A fold's transaction is bounded by its estimated dirty pages as well as by its streams: LMDB
/// holds a transaction's dirty pages in memory until its commit (and keeps them for reuse after),
/// so a fold of many long streams in one transaction would set a process's peak memory.
@Suite("Fold bounds")
struct FoldBoundTests {
    private typealias Batch = BatchRecordTests

    /// Each stream's pending entries (events and kept rows) and whether it has rows among them, in
    /// the order a fold takes the streams.
    private static func pendingEntries(_ log: LMDBEventLog) throws -> [(stream: String, entries: Int, rows: Bool)] {
        let names = try log.streams().map(\.stream).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return try log.reading { txn in
            let pending = try PendingIndex.load(log, txn)
            return try names.map { stream in
                let parts = try pending.entries(of: stream)
                return (stream, parts.reduce(0) { $0 + $1.eventCount + $1.rowCount }, parts.contains { $0.rowCount > 0 })
            }
        }
    }

    /// Where each transaction should stop: a stream is added while the streams already in it are
    /// estimated below `pageLimit`.
    private static func expectedSteps(_ streams: [(stream: String, entries: Int, rows: Bool)], pageLimit: Int) -> [[String]] {
        var steps: [[String]] = [[]]
        var (entries, withRows) = (0, 0)
        for (stream, count, rows) in streams {
            if LMDBEventLog.estimatedDirtyPages(gaps: steps[steps.count - 1].count, streamsWithRows: withRows, entries: entries) >= pageLimit {
                steps.append([])
                (entries, withRows) = (0, 0)
            }
            steps[steps.count - 1].append(stream)
            entries += count
            if rows { withRows += 1 }
        }
        return steps
    }

    /// The stream a fold in progress resumes at, from `meta`.
    private static func progressStream(_ log: LMDBEventLog) throws -> String? {
        try log.reading { txn in try txn.get(log.meta, key: PendingIndex.progressKey).map { String(decoding: $0[8...], as: UTF8.self) } }
    }

    /// Commands into streams named to fall between the test's: "s1" < "s1-" < "s10" < "s10-"…, so
    /// that each of the test's streams' index entries falls into a gap of its own, as in a grown
    /// index of scattered sessions.
    private static let between = (0..<12).map { session in
        CommandEnvelope(
            stream: "s\(session)-", command: .cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1, currency: nil))))
    }

    @Test func eachStepStopsOnceItsEstimatedPagesReachTheLimit() throws {
        let folder = TemporaryDirectory()
        let reference = try Batch.log(folder, "reference", Batch.always)
        // The streams between are folded into the index before the test's stay pending.
        try Batch.send(Self.between, to: try Batch.log(folder, "log", Batch.always))
        let log = try Batch.log(folder, "log", Batch.never)
        // Sessions of different lengths, so that the steps hold different numbers of streams.
        let commands = Batch.commands(rounds: 9, streams: 4) + Batch.commands(rounds: 3, streams: 12, from: 10)
        try Batch.send(commands, to: log, idsAfter: 1_000)
        try Batch.send(Self.between, to: reference)
        try Batch.send(commands, to: reference, idsAfter: 1_000)
        let streams = try Self.pendingEntries(log).filter { !$0.stream.hasSuffix("-") }
        #expect(streams.count == 12)
        // Above two streams' estimate and below all twelve's.
        let pageLimit = LMDBEventLog.estimatedDirtyPages(
            gaps: 3, streamsWithRows: streams.prefix(3).filter(\.rows).count,
            entries: streams.prefix(3).reduce(0) { $0 + $1.entries })
        let expected = Self.expectedSteps(streams, pageLimit: pageLimit)
        #expect(expected.count > 2 && expected.count < streams.count)
        for (index, step) in expected.enumerated() {
            let done = try log.environment.write { txn in try log.foldStep(txn, streamLimit: .max, pageLimit: pageLimit) }
            #expect(done == (index == expected.count - 1))
            // The next step begins at the next expected stream; each stays readable as before.
            #expect(try Self.progressStream(log) == (done ? nil : expected[index + 1][0]), "after folding \(step)")
            #expect(try Batch.answers(log) == (try Batch.answers(reference)))
        }
        #expect(try Batch.pendingRecords(log) == 0)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
    }

    /// New sessions whose names follow one another put their index entries side by side, into one
    /// gap of the index: a fold counts their pages by the gaps, and takes them in one transaction
    /// where a page a stream would have taken one for every few.
    @Test func streamsWhoseEntriesFallTogetherShareTheirPages() throws {
        let folder = TemporaryDirectory()
        let log = try Batch.log(folder, "log", Batch.never)
        let sessions = (1000..<1200).map { session in
            CommandEnvelope(
                stream: "session-\(session)",
                command: .cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1, currency: nil))))
        }
        try Batch.send(sessions, to: log)
        let pageLimit = 20
        #expect(LMDBEventLog.estimatedDirtyPages(gaps: sessions.count, streamsWithRows: 0, entries: sessions.count) > 10 * pageLimit)
        var transactions = 1
        while try log.environment.write({ txn in try log.foldStep(txn, streamLimit: .max, pageLimit: pageLimit) }) == false { transactions += 1 }
        #expect(transactions == 1)
        #expect(try Batch.pendingRecords(log) == 0)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        #expect(try log.version(of: "session-1100") == 1)
    }

    /// A limit below one stream's estimate still folds a stream a transaction: the fold advances.
    @Test func aLimitOfOnePageFoldsOneStreamATransaction() throws {
        let folder = TemporaryDirectory()
        let log = try Batch.log(folder, "log", Batch.never)
        try Batch.send(Batch.commands(rounds: 2, streams: 5), to: log)
        var transactions = 1
        while try log.environment.write({ txn in try log.foldStep(txn, streamLimit: .max, pageLimit: 1) }) == false { transactions += 1 }
        #expect(transactions == 5)
        #expect(try Batch.pendingRecords(log) == 0)
    }

    /// `forget` folds what is pending in bounded transactions before its own: folded whole in the
    /// forget's transaction, a million random-id sessions' pending records held 179 MB of pages.
    @Test func forgetFoldsWhatIsPendingInBoundedStepsFirst() throws {
        let folder = TemporaryDirectory()
        let log = try Batch.log(
            folder, "log", FoldPolicy(events: 1_000_000_000, records: 1_000_000_000, streamsPerTransaction: 1_024, pagesPerTransaction: 1))
        try Batch.send(Batch.commands(rounds: 2, streams: 5), to: log)
        #expect(try Batch.pendingRecords(log) > 0)
        let version = try log.version(of: "s1")
        let before = try log.environment.read { $0.snapshotID }
        let forgotten = try log.forget(streams: ["s3"])
        #expect(forgotten.map(\.stream) == ["s3"])
        // Five streams a transaction each (a page a transaction), then the forget's own.
        #expect(try log.environment.read { $0.snapshotID } - before >= 6)
        #expect(try Batch.pendingRecords(log) == 0)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        #expect(try log.version(of: "s1") == version && version > 0)
    }

    /// Appends that fold after every commit, a page a transaction, read as a log that never folds.
    @Test func foldsBoundedByPagesReadTheSame() throws {
        let folder = TemporaryDirectory()
        let pending = try Batch.log(folder, "pending", Batch.never)
        let folded = try Batch.log(folder, "folded", FoldPolicy(events: 1, records: 1, streamsPerTransaction: 1_024, pagesPerTransaction: 1))
        let commands = Batch.commands(rounds: 8)
        try Batch.send(commands, to: pending)
        try Batch.send(commands, to: folded)
        #expect(try Batch.pendingRecords(folded) == 0)
        #expect(try Batch.answers(folded) == (try Batch.answers(pending)))
        #expect(try folded.checkIntegrity(progress: nil).isIntact)
    }

    @Test func theEnvironmentsBoundsParse() {
        #expect(FoldPolicy.parse("1,1") == FoldPolicy(events: 1, records: 1, streamsPerTransaction: 65_536, pagesPerTransaction: 1_024))
        #expect(FoldPolicy.parse("5, 6,7") == FoldPolicy(events: 5, records: 6, streamsPerTransaction: 7, pagesPerTransaction: 1_024))
        #expect(FoldPolicy.parse("5,6,7,8") == FoldPolicy(events: 5, records: 6, streamsPerTransaction: 7, pagesPerTransaction: 8))
        #expect(FoldPolicy.parse("5,6,7,0")?.pagesPerTransaction == 1)
        #expect(FoldPolicy.parse("5") == nil)
        #expect(FoldPolicy.standard.pagesPerTransaction == 1_024)
    }
}
