import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog

/// `send` into an LMDB log decides a batch while the one before is written on another thread
/// (`BackgroundAppender`): the answers are the synchronous ones, in order, each only once its
/// events are committed; a write that finds the log elsewhere than predicted writes nothing and
/// its commands are decided again; a write that fails takes nothing after it into the log.
@Suite("Background appends")
struct BackgroundAppenderTests {
    /// An LMDB log whose appends go through a `BackgroundAppender`; `beforeWrite` runs on the
    /// writing thread before each predicted write (numbered from 1): another writer, or a failure.
    final class BackgroundLog: EventLog, PredictedAppending, @unchecked Sendable {
        let lmdb: LMDBEventLog
        var beforeWrite: (Int, LMDBEventLog) throws -> Void = { _, _ in }
        private var writes = 0
        private(set) lazy var appender = BackgroundAppender(log: self)

        init(path: String) throws {
            lmdb = try LMDBEventLog(path: path)
        }

        var location: String { lmdb.location }
        var capabilities: LogCapabilities {
            LogCapabilities(
                snapshots: nil, batchReading: nil, deferredCommits: appender, following: nil, backup: nil,
                forgetting: nil, keptRowRepair: nil, predictedAppends: nil, prefetching: nil, eventIds: nil,
                newestLogSchema: lmdb.capabilities.newestLogSchema,
                keepsRowsApart: lmdb.capabilities.keepsRowsApart)
        }
        func append(_ requests: [AppendRequest], asPredicted results: [AppendResult], after head: Int) throws {
            writes += 1
            try beforeWrite(writes, lmdb)
            try lmdb.append(requests, asPredicted: results, after: head)
        }
        func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
            appender.drain()
            return try lmdb.append(requests)
        }
        // Reads wait for the writes under way that name their streams, as `send`'s log does.
        func version(of stream: String) throws -> Int {
            appender.settle(streams: [stream])
            return try lmdb.version(of: stream)
        }
        func receipt(stream: String, commandId: String) throws -> CommandReceipt? {
            appender.settle(streams: [stream])
            return try lmdb.receipt(stream: stream, commandId: commandId)
        }
        /// Not waiting: the appender reads it, holding its lock, when no write is under way.
        func lastPosition() throws -> Int { try lmdb.lastPosition() }
        func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
            appender.waitForWrites()
            try lmdb.forEachEvent(from: from, through: through, body)
        }
        func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
            appender.settle(streams: [stream])
            try lmdb.forEachEvent(inStream: stream, throughPosition: throughPosition, body)
        }
        func state(ofStream stream: String, throughPosition: Int?) throws -> (state: FlowState, version: Int) {
            appender.settle(streams: [stream])
            return try lmdb.state(ofStream: stream, throughPosition: throughPosition)
        }
        func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws {
            appender.waitForWrites()
            try lmdb.forEachStream(from: start, body)
        }
        func event(inStream stream: String, version: Int) throws -> RecordedEvent? {
            appender.settle(streams: [stream])
            return try lmdb.event(inStream: stream, version: version)
        }
        func settings() throws -> LogSettings { try lmdb.settings() }
        func updateSettings(_ change: (LogSettings, Bool) throws -> LogSettings) throws -> LogSettings { try lmdb.updateSettings(change) }
    }

    struct Failed: Error {}

    private static func add(_ stream: String, _ product: String, id: String? = nil) -> CommandEnvelope {
        CommandEnvelope(stream: stream, commandId: id, command: .cart(.addProduct(.init(productId: product, name: nil, unitPrice: 100, quantity: 1))))
    }

    private static func remove(_ stream: String, _ product: String) -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .cart(.removeProduct(.init(productId: product, quantity: nil))))
    }

    /// Batches of ten over four streams, with rejections (removing what is not there) and command
    /// ids used again in later batches (duplicates whose first use may still be being written).
    private static func batches() -> [[CommandEnvelope]] {
        (0..<8).map { batch in
            (0..<10).map { n in
                let stream = "s\((batch + n) % 4)"
                switch n {
                case 3: return remove(stream, "missing")
                case 5: return add("s1", "p", id: "c\(batch / 2)")
                default: return add(stream, "p\(batch)-\(n)")
                }
            }
        }
    }

    /// Every batch submitted before the writer runs, so each is decided while the one before is written.
    private static func runDeferred(_ log: BackgroundLog, _ batches: [[CommandEnvelope]]) -> [Result<[CommandOutcome], any Error>] {
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let writer = GroupCommitWriter(processor: processor, commandsPerCommit: 10)
        var answers: [Result<[CommandOutcome], any Error>] = []
        for batch in batches { writer.submit(batch) { answers.append($0) } }
        writer.finish()
        writer.run()
        return answers
    }

    @Test func theAnswersAndTheLogAreTheSynchronousOnes() throws {
        let folder = TemporaryDirectory()
        let reference = try LMDBEventLog(path: folder.child("sync"))
        let syncProcessor = CommandProcessor(log: reference, clock: SteppingClock(), ids: SequentialIDGenerator())
        let expected = try Self.batches().map { try syncProcessor.handle($0) }

        let log = try BackgroundLog(path: folder.child("deferred"))
        let answers = Self.runDeferred(log, Self.batches())
        #expect(try answers.map { try $0.get() } == expected)
        #expect(try log.lmdb.eventSummaries() == reference.eventSummaries())
        #expect(try log.lmdb.lastPosition() > 40)
    }

    @Test func aWriteThatFindsAnotherWritersEventsWritesNothingAndItsCommandsAreDecidedAgain() throws {
        let folder = TemporaryDirectory()
        let log = try BackgroundLog(path: folder.child("log"))
        log.beforeWrite = { write, lmdb in
            guard write == 3 else { return }
            // Another writer appends to a stream the batches use, between two of their writes.
            let intruder = CommandProcessor(log: lmdb, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1_000_000))
            _ = try intruder.handle(Self.add("s2", "intruder"))
        }
        let batches = Self.batches()
        let answers = try Self.runDeferred(log, batches).map { try $0.get() }
        #expect(answers.map(\.count) == batches.map(\.count))
        // Every accepted event is in the log once, where its answer says, and each batch's events
        // come after the batch's before it (within a batch decided again in rounds, a round's after
        // the round's before it, as without deferring).
        var lastOfBatches = 0
        var accepted = 0
        for outcomes in answers {
            var lastOfBatch = lastOfBatches
            for outcome in outcomes {
                guard case .accepted(let acceptance) = outcome, !acceptance.duplicate else { continue }
                for (offset, position) in acceptance.receipt.positions.enumerated() {
                    let version = acceptance.receipt.version - acceptance.receipt.eventCount + offset + 1
                    let event = try #require(try log.lmdb.event(inStream: acceptance.stream, version: version))
                    #expect(event.position == position)
                    #expect(position > lastOfBatches)
                    lastOfBatch = max(lastOfBatch, position)
                    accepted += 1
                }
            }
            lastOfBatches = lastOfBatch
        }
        #expect(try log.lmdb.lastPosition() == accepted + 1)
        #expect(try log.lmdb.eventSummaries().contains { $0.contains("intruder") })
    }

    @Test func aFailedWriteAnswersItsBatchAndEveryLaterOneWithTheFailureAndNothingAfterItIsWritten() throws {
        let folder = TemporaryDirectory()
        let log = try BackgroundLog(path: folder.child("log"))
        log.beforeWrite = { write, _ in if write == 2 { throw Failed() } }
        let batches = Self.batches()
        let answers = Self.runDeferred(log, batches)
        #expect(answers.count == batches.count)
        let first = try answers[0].get()
        for answer in answers.dropFirst() {
            #expect(throws: Failed.self) { try answer.get() }
        }
        let written = first.reduce(0) { total, outcome in
            if case .accepted(let acceptance) = outcome { total + acceptance.receipt.eventCount } else { total }
        }
        #expect(try log.lmdb.lastPosition() == written)
    }
}
