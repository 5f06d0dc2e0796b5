import FlowDomain
import FlowLogBasics
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogLMDB

/// Each stream's head keeps its latest state, so loading a stream to decide its next command folds
/// a few events instead of hundreds since its last snapshot.
@Suite("Stream heads")
struct HeadsTests {
    private func filled(_ path: String) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: path)
        var rng = SplitMix64(seed: 3)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        while try log.lastPosition() < 400 {
            _ = try processor.handle([CommandEnvelope(stream: ["a", "b"].randomElement(using: &rng)!, command: generator.command(using: &rng))])
        }
        return log
    }

    private func headVersion(_ log: LMDBEventLog, _ stream: String) throws -> Int? {
        try log.reading { txn in try txn.get(log.headsDB!, key: Array(stream.utf8)).map { Keys.decodeInt($0) } }
    }

    @Test func appendsKeepAHeadWithinAnIntervalOfTheStreamsVersion() throws {
        let folder = TemporaryDirectory()
        let log = try filled(folder.child("log"))
        for stream in ["a", "b"] {
            let version = try log.version(of: stream)
            let head = try #require(try headVersion(log, stream))
            #expect(head <= version && version - head < AppendRules.headInterval)
            let loaded = try log.state(ofStream: stream)
            let replayed = try log.replayedState(ofStream: stream)
            #expect(loaded.state == replayed.state && loaded.version == replayed.version)
        }
    }

    /// A head is a cache: damaged, it is passed over and the snapshots and events answer.
    @Test func aDamagedHeadIsPassedOver() throws {
        let folder = TemporaryDirectory()
        let log = try filled(folder.child("log"))
        try log.environment.write { txn in
            var bytes = Array(try txn.get(log.headsDB!, key: Array("a".utf8))!)
            bytes[bytes.count - 12] ^= 0x40
            try txn.put(log.headsDB!, key: Array("a".utf8), value: bytes)
        }
        let loaded = try log.state(ofStream: "a")
        let replayed = try log.replayedState(ofStream: "a")
        #expect(loaded.state == replayed.state && loaded.version == replayed.version)
    }

    @Test func anImportKeepsEachStreamsHead() throws {
        let folder = TemporaryDirectory()
        let source = try filled(folder.child("source"))
        let target = try LMDBEventLog(path: folder.child("target"))
        let events = try source.events()
        _ = try target.importEvents { sink in for (index, event) in events.enumerated() { try sink.add(event, line: index + 1) } }
        for stream in ["a", "b"] {
            #expect(try headVersion(target, stream) == (try target.version(of: stream)))
            let loaded = try target.state(ofStream: stream)
            #expect(loaded.state == (try source.replayedState(ofStream: stream)).state)
        }
    }

    private static func orders(_ count: Int, stream: String) -> [CommandEnvelope] {
        (1...count).flatMap { number in
            [
                CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: "p\(number)", name: nil, unitPrice: 500, quantity: 1)))),
                CommandEnvelope(stream: stream, command: .cart(.checkout)),
                CommandEnvelope(stream: stream, command: .payment(.succeeded(.init(orderId: "o\(number)")))),
            ]
        }
    }

    /// A log that keeps rows apart stores heads and snapshots without them, so a request carries
    /// its state without its older rows (`CommandProcessor.stateToKeep`): a copy of the whole
    /// history in every head's request made each next order copy the history again (`send` into
    /// one long session peaked at 91 MB). The heads written so load as a fold of the events does.
    @Test func aRequestCarriesTheStateToKeepWithoutItsOlderRowsAndTheHeadLoadsAsAFold() throws {
        // Given one session that placed 40 orders in one batch, on an LMDB log
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let outcomes = try processor.handle(Self.orders(40, stream: "s"))
        #expect(outcomes.allSatisfy { if case .accepted = $0 { true } else { false } })
        // Then the stream loads from its head as a fold of its events rebuilds it
        let loaded = try log.state(ofStream: "s")
        let replayed = try log.replayedState(ofStream: "s")
        #expect(loaded.state == replayed.state && loaded.version == replayed.version)
        #expect(LogDecider.keptRows(of: loaded.state).count == 40)
        // And the state a request carries holds the latest order only, and counts them all
        let kept = processor.stateToKeep(replayed.state)
        #expect(LogDecider.keptRows(of: kept).count == 1 && LogDecider.keptRowCount(of: kept) == 40)
        #expect(LogDecider.keptRows(of: kept).last == LogDecider.keptRows(of: replayed.state).last)
    }

    /// A log that keeps whole states in its snapshots (memory, PostgreSQL) gets them whole.
    @Test func aLogThatKeepsWholeStatesGetsThemWhole() throws {
        let log = InMemoryEventLog()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        _ = try processor.handle(Self.orders(20, stream: "s"))
        let state = try log.replayedState(ofStream: "s").state
        #expect(LogDecider.keptRows(of: processor.stateToKeep(state)).count == 20)
    }
}
