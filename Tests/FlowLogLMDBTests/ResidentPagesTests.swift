@testable import FlowLogLMDB
@testable import FlowLog
import FlowLogTesting
import LMDB
import Testing

/// Long scans drop the map's resident pages now and then; the records must read the same afterwards.
@Suite("Resident pages")
struct ResidentPagesTests {
    @Test func theMappingHoldingARecordIsFoundAndReleasingItKeepsTheRecordReadable() throws {
        let folder = TemporaryDirectory()
        let environment = try Environment(path: folder.path)
        let database = try environment.openDatabases(named: ["test"], create: true)[0]
        let value = (0..<200).map { UInt8($0) }
        try environment.write { txn in try txn.put(database, key: [1], value: value) }
        try environment.read { txn in
            let stored = try #require(try txn.get(database, key: [1]))
            let mapping = try #require(Environment.mapping(containing: stored.baseAddress!))
            #expect(mapping.baseAddress! <= stored.baseAddress! && stored.baseAddress! + stored.count <= mapping.baseAddress! + mapping.count)
            #expect(mapping.count >= environment.mapSize, "the whole map, not just one page")
            Environment.releaseResidentPages(of: mapping)
            #expect(Array(stored) == value, "the same pointer reads the same bytes after the release")
        }
    }

    @Test func aPointerOutsideEveryMappingHasNone() {
        #expect(Environment.mapping(containing: UnsafeRawPointer(bitPattern: 0x10)!) == nil)
    }

    @Test func aShortScanNeverReleasesTheMapAndALongOneReleasesAtItsInterval() throws {
        let folder = TemporaryDirectory()
        let environment = try Environment(path: folder.path)
        let database = try environment.openDatabases(named: ["test"], create: true)[0]
        try environment.write { txn in try txn.put(database, key: [1], value: [1, 2, 3]) }
        try environment.read { txn in
            let address = try #require(try txn.get(database, key: [1])?.baseAddress)
            var short = ResidentPageRelease(releaseEvery: 128, startingAfter: 1_024, in: txn)
            for _ in 1..<1_024 { short.include(address) }
            short.finish()
            #expect(short.releases == 0, "a scan shorter than its quiet start keeps its pages")

            var long = ResidentPageRelease(releaseEvery: 128, startingAfter: 1_024, in: txn)
            for _ in 0..<1_024 + 128 { long.include(address) }
            #expect(long.releases == 2, "once at the quiet start, then every 128 records")
            long.include(address)
            long.finish()
            #expect(long.releases == 3, "the end of a long scan releases what it left resident")
        }
        try environment.write { txn in
            let address = try #require(try txn.get(database, key: [1])?.baseAddress)
            var writing = ResidentPageRelease.stream(in: txn)
            for _ in 0..<4_096 { writing.include(address) }
            writing.finish()
            #expect(writing.releases == 0, "a write transaction's buffers may be heap memory: never released")
        }
    }
}
