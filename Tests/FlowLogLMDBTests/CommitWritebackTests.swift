import FlowLogTesting
import Testing

@testable import FlowLogLMDB
@testable import LMDB

/// A large write has the kernel start writing pages back while LMDB commits (`CommitWriteback`).
/// That may change when bytes reach the disk, never what is committed, and the helper thread must
/// be gone when the write returns.
struct CommitWritebackTests {
    @Test func aLargeWriteCommitsEverythingItPut() throws {
        let folder = TemporaryDirectory()
        let environment = try Environment(path: folder.path)
        let database = try environment.openDatabases(named: ["large"], create: true)[0]
        let values = (0..<200).map { index in [UInt8](repeating: UInt8(index % 251), count: 40_000) }
        try environment.write(retryingWhenMapIsFull: false, aroundCommit: { CommitWriteback.around($0, in: environment) }) { txn in
            for (index, value) in values.enumerated() { try txn.put(database, key: [UInt8(index >> 8), UInt8(index & 0xFF)], value: value) }
        }
        let stored = try environment.read { txn in
            try values.indices.map { index in try txn.get(database, key: [UInt8(index >> 8), UInt8(index & 0xFF)]).map(Array.init) }
        }
        #expect(stored == values.map { Optional($0) })
    }

    @Test func stoppingWaitsForTheThreadAndCanFollowAStartAtOnce() throws {
        let folder = TemporaryDirectory()
        let environment = try Environment(path: folder.path)
        for _ in 0..<20 {
            let writeback = try #require(CommitWriteback(environment: environment))
            writeback.stop()
            #expect(writeback.hasFinished)
        }
    }
}
