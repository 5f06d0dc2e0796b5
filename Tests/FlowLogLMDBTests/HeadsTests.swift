@testable import FlowLogLMDB
@testable import FlowLog
import FlowDomain
import FlowLogTesting
import LMDB
import Testing

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
}
