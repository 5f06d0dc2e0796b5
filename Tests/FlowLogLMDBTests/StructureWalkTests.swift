import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogSystem
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLogLMDB
@testable import LMDB

/// The structure walk (`StructureWalk`): a log that is fine is never called damaged — every fixture,
/// and logs made by sends, imports, forgets, compactions and a growing map — and each kind of
/// damaged page it checks is named by number and database, the walk going on past it.
@Suite("The structure walk of a data file")
struct StructureWalkTests {
    static let fixtures = ["logs/schema-1", "logs/kinds-v1/log", "logs/schema-3", "logs/schema-4", "logs/eur-orders", "logs/out-of-range-import"]

    static func bytes(_ fixture: String) throws -> [UInt8] {
        Array(try Data(contentsOf: FlowLogProcess.fixtures.appendingPathComponent(fixture + "/data.mdb")))
    }

    /// The walk of `bytes` written as a data file of their own.
    static func walk(_ bytes: [UInt8], _ folder: TemporaryDirectory) throws -> StructureWalk {
        let path = folder.child("data-\(UUID().uuidString).mdb")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try #require(StructureWalk.walk(file: path, snapshot: nil))
    }

    static func store<Integer: FixedWidthInteger>(_ value: Integer, _ bytes: inout [UInt8], at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { for (index, byte) in $0.enumerated() { bytes[offset + index] = byte } }
    }

    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    // MARK: Healthy logs

    @Test(arguments: fixtures)
    func everyFixtureIsWholeAndEveryPageAccountedFor(_ fixture: String) throws {
        let bytes = try Self.bytes(fixture)
        let walk = try Self.walk(bytes, TemporaryDirectory())
        #expect(walk.problems == [], "\(fixture)")
        let pages = DataFilePages(bytes, pageSize: Self.pageSize)
        #expect(walk.pagesReached >= pages.pages.count, "\(fixture): the walk reaches every page the tests' own parser does")
    }

    /// A log made by many sends on a small map that grows, an old reader held across writes, an
    /// import, a forget, a large value written and deleted (overflow pages, then free ones), and a
    /// compaction: walked after each step, from the running environment's snapshot, never damaged.
    @Test func madeLogsAreNeverCalledDamaged() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        var checked = 0
        func expectWhole(_ step: String, _ at: String = path) throws {
            let problems = try LMDBEventLog(path: at, access: .readOnly).walkStructure()
            #expect(problems == [], "\(step)")
            checked += 1
        }
        do {
            let log = try LMDBEventLog(path: path, initialMapSize: 64 * 1024)
            let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            let oldReader = try LMDBEventLog(path: path, access: .readOnly)
            for round in 0..<6 {
                try oldReader.reading { _ in
                    for stream in 0..<12 {
                        for number in 0..<4 {
                            _ = try processor.handle([
                                CommandEnvelope(
                                    stream: "s\(stream)",
                                    command: .cart(
                                        .addProduct(.init(productId: "p\(round)-\(number)", name: "a product \(round)", unitPrice: 500, quantity: 1)))
                                ),
                                CommandEnvelope(stream: "s\(stream)", command: .cart(.checkout)),
                                CommandEnvelope(stream: "s\(stream)", command: .payment(.succeeded(.init(orderId: "o\(round)-\(stream)-\(number)")))),
                            ])
                        }
                    }
                    // Pages freed while a reader holds an older snapshot stay listed, held for it.
                    #expect(try log.environment.walkStructure() == [], "round \(round), with an old reader")
                }
                try expectWhole("round \(round)")
            }
            let target = try LMDBEventLog(path: folder.child("imported"))
            let events = try log.events()
            _ = try target.importEvents { sink in for (index, event) in events.enumerated() { try sink.add(event, line: index + 1) } }
            try expectWhole("import", folder.child("imported"))
            _ = try log.forget(streams: ["s3", "s7"], lastEventBefore: nil) { _ in nil }
            try expectWhole("forget")
        }
        let environment = try Environment(path: path)
        let meta = try environment.write { try $0.openDatabase(named: "meta", create: false) }
        try environment.write { try $0.put(meta, key: Array("scratch".utf8), value: [UInt8](repeating: 0x5A, count: 1 << 20)) }
        try expectWhole("a large value in overflow pages")
        try environment.write { _ = try $0.delete(meta, key: Array("scratch".utf8)) }
        try expectWhole("the large value deleted")
        _ = try LMDBEventLog.compact(path: path)
        try expectWhole("compacted")
        #expect(checked == 11)
    }

    // MARK: Damaged pages

    /// schema-4 and its pages as the tests' own parser finds them.
    struct Damage {
        var bytes: [UInt8]
        let pages: DataFilePages
        let pageSize = StructureWalkTests.pageSize

        init() throws {
            bytes = try StructureWalkTests.bytes("logs/schema-4")
            pages = DataFilePages(bytes, pageSize: StructureWalkTests.pageSize)
        }

        func pages(of database: String, flags: UInt16) -> [Int] {
            pages.pages.filter { $0.value.database == database && $0.value.flags & 0x07 == flags }.map(\.key).sorted()
        }

        func u16(_ offset: Int) -> Int { Int(DataFilePages.load(UInt16.self, bytes, offset)) }
        /// The offset of node `index` of `page`.
        func node(_ page: Int, _ index: Int) -> Int { page * pageSize + u16(page * pageSize + 16 + 2 * index) }
        func child(_ page: Int, _ index: Int) -> Int {
            let node = node(page, index)
            return u16(node) | u16(node + 2) << 16 | u16(node + 4) << 32
        }

        mutating func setChild(_ page: Int, _ index: Int, to child: Int) {
            let node = node(page, index)
            StructureWalkTests.store(UInt16(child & 0xFFFF), &bytes, at: node)
            StructureWalkTests.store(UInt16(child >> 16 & 0xFFFF), &bytes, at: node + 2)
            StructureWalkTests.store(UInt16(child >> 32 & 0xFFFF), &bytes, at: node + 4)
        }
    }

    /// The problems named for `page` of `database`.
    static func named(_ problems: [PageProblem], _ page: Int, _ database: String, _ words: String) -> Bool {
        problems.contains { $0.page == page && $0.database == database && $0.detail.contains(words) }
    }

    @Test func aBranchNodePastTheLastPageAndAPageReachedTwiceAreBothNamed() throws {
        var damage = try Damage()
        let branch = try #require(damage.pages(of: "events", flags: 0x01).first)
        #expect(damage.u16(branch * damage.pageSize + 12) >= 20, "the branch page has two nodes")
        let second = damage.child(branch, 1)
        damage.setChild(branch, 0, to: damage.pages.usedPages + 5)
        // A second damaged page, in another database: a leaf of the stream index made a branch page.
        let otherLeaf = try #require(damage.pages(of: "streamIndex", flags: 0x02).first)
        damage.bytes[otherLeaf * damage.pageSize + 10] = 0x01
        let problems = try Self.walk(damage.bytes, TemporaryDirectory()).problems
        #expect(Self.named(problems, branch, "events", "names page \(damage.pages.usedPages + 5), past the last page"), "\(problems)")
        #expect(Self.named(problems, otherLeaf, "streamIndex", "is a branch page at depth"), "\(problems)")

        var twice = try Damage()
        twice.setChild(branch, 0, to: second)
        let again = try Self.walk(twice.bytes, TemporaryDirectory()).problems
        #expect(Self.named(again, second, "events", "is reached a second time (from page \(branch))"), "\(again)")
        // The leaf node 0 named, now reached by nothing: once the damage is named, it is not named again.
        #expect(again.count == 1, "\(again)")
    }

    @Test func aLeafMadeABranchBoundsThatCrossAndAPageNumberChangedAreNamed() throws {
        let found = try Damage()
        let leaves = found.pages.pages.filter { $0.key >= 2 && $0.value.flags & 0x07 == 0x02 && !$0.value.database.hasPrefix("(") }.map {
            ($0.key, $0.value.database)
        }
        .sorted { $0.0 < $1.0 }
        #expect(leaves.count >= 3)
        var damage = found
        let size = damage.pageSize
        damage.bytes[leaves[0].0 * size + 10] = 0x01
        Self.store(UInt16(damage.u16(leaves[1].0 * size + 14) + 2), &damage.bytes, at: leaves[1].0 * size + 12)
        Self.store(UInt64(leaves[2].0 + 1), &damage.bytes, at: leaves[2].0 * size)
        let problems = try Self.walk(damage.bytes, TemporaryDirectory()).problems
        #expect(Self.named(problems, leaves[0].0, leaves[0].1, "is a branch page at depth"), "\(problems)")
        #expect(Self.named(problems, leaves[1].0, leaves[1].1, "free space runs from byte"), "\(problems)")
        #expect(Self.named(problems, leaves[2].0, leaves[2].1, "its header names page \(leaves[2].0 + 1), not \(leaves[2].0)"), "\(problems)")
        #expect(problems.count == 3, "\(problems)")
    }

    @Test func anOverflowRunTooLongOrTooShortIsNamed() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        _ = try LMDBEventLog(path: path)
        let environment = try Environment(path: path)
        let meta = try environment.write { try $0.openDatabase(named: "meta", create: false) }
        try environment.write { try $0.put(meta, key: Array("scratch".utf8), value: [UInt8](repeating: 0x5A, count: 40_000)) }
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")))
        #expect(try Self.walk(original, folder).problems == [])
        let pages = DataFilePages(original, pageSize: Self.pageSize)
        let first = try #require(pages.pages.filter { $0.value.database == "meta" && $0.value.flags == 0x04 }.map(\.key).min())
        let offset = first * Self.pageSize + 12
        let needed = Int(DataFilePages.load(UInt32.self, original, offset))
        #expect(needed == 10)
        for (count, words) in [(needed + 1_000_000, "runs past the last page"), (needed - 1, "where the value of 40000 bytes needs 10")] {
            var bytes = original
            Self.store(UInt32(count), &bytes, at: offset)
            let problems = try Self.walk(bytes, folder).problems
            #expect(Self.named(problems, first, "meta", words), "\(problems)")
        }
    }

    /// The gap the meta page's checks left: a main database root naming an older commit's tree,
    /// which LMDB opens as a log that is whole. The walk finds pages reached that are listed free,
    /// pages reached twice, or pages of the newer tree that nothing reaches.
    @Test func aMainRootNamingAnotherTreeIsNamed() throws {
        let original = try Self.bytes("logs/schema-4")
        let pages = DataFilePages(original, pageSize: Self.pageSize)
        let newest = DataFilePages.load(UInt64.self, original, 144) > DataFilePages.load(UInt64.self, original, Self.pageSize + 144) ? 0 : 1
        let folder = TemporaryDirectory()
        for bit in 0..<12 {
            var bytes = original
            bytes[newest * Self.pageSize + 128 + bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            let root = Int(DataFilePages.load(UInt64.self, bytes, newest * Self.pageSize + 128))
            let problems = try Self.walk(bytes, folder).problems
            #expect(!problems.isEmpty, "main root \(root) (of \(pages.usedPages) pages)")
        }
    }

    /// Every bit the walk reads in a page header of a tree, flipped one at a time: each is named.
    @Test func everyFlipInAPageHeaderItChecksIsNamed() throws {
        let original = try Self.bytes("logs/schema-4")
        let pages = DataFilePages(original, pageSize: Self.pageSize)
        let folder = TemporaryDirectory()
        var flips = 0
        for (page, place) in pages.pages.sorted(by: { $0.key < $1.key }) where page >= 2 {
            let start = page * Self.pageSize
            // Only an overflow run's first page has a header.
            if place.flags == 0x04, DataFilePages.load(UInt64.self, original, start) != UInt64(page) { continue }
            // The page number, the flags that say what the page is, its bounds (or its run's length).
            let bits =
                (0..<64).map { (start + $0 / 8, $0 % 8) } + [0, 1, 2, 3, 5, 6].map { (start + 10, $0) }
                + (0..<32).map { (start + 12 + $0 / 8, $0 % 8) }
            for (offset, bit) in bits {
                var bytes = original
                bytes[offset] ^= UInt8(1) << UInt8(bit)
                let problems = try Self.walk(bytes, folder).problems
                #expect(!problems.isEmpty, "page \(page) of \(place.database), byte \(offset - start) bit \(bit)")
                flips += 1
            }
        }
        #expect(flips > 1_000)
    }

    /// The walk copies pages from LMDB's map, summing plain leaves in C, where it can; from the
    /// file with `pread` where it cannot. Both name the same problems: flips in every header and in
    /// the first and last node of every page, walked both ways.
    @Test func theWalkThroughLMDBsMapNamesWhatTheWalkOfTheFileNames() throws {
        let original = try Self.bytes("logs/schema-4")
        let pages = DataFilePages(original, pageSize: Self.pageSize)
        let folder = TemporaryDirectory()
        var compared = 0
        var throughMap = 0
        var damaged = 0
        var leavesFoundWhole = 0
        for (page, place) in pages.pages.sorted(by: { $0.key < $1.key }) where page >= 2 && place.flags & 0x03 != 0 {
            let start = page * Self.pageSize
            let lower = Int(DataFilePages.load(UInt16.self, original, start + 12))
            let count = max(0, (lower - 16) / 2)
            var offsets = [10, 12, 13, 14, 15, 16, 17]
            for index in Set([0, count - 1]) where index >= 0 {
                let node = Int(DataFilePages.load(UInt16.self, original, start + 16 + 2 * index))
                guard node + 8 <= Self.pageSize else { continue }
                offsets += [16 + 2 * index] + (node..<(node + 8)).map { $0 }
            }
            for offset in offsets {
                for bit in [0, 1, 4, 7] {
                    var bytes = original
                    bytes[start + offset] ^= UInt8(1) << UInt8(bit)
                    let copy = folder.child("copy")
                    try? FileManager.default.removeItem(atPath: copy)
                    try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
                    #expect(FileManager.default.createFile(atPath: copy + "/data.mdb", contents: Data(bytes)))
                    var options = Environment.Options()
                    options.readOnly = true
                    guard let environment = try? Environment(path: copy, options: options),
                        let throughLMDB = try? environment.structureWalk()
                    else { continue }
                    let ofTheFile = try #require(StructureWalk.walk(file: copy + "/data.mdb", snapshot: nil))
                    #expect(throughLMDB.problems == ofTheFile.problems, "page \(page) of \(place.database), byte \(offset) bit \(bit)")
                    // Reading the records of a copy whose main database, a branch page or a page header
                    // is damaged can end in one of LMDB's own assertions (an abort, which no guard
                    // catches): flips in the nodes of leaves only.
                    if place.database != "(main)", place.flags & 0x01 == 0, offset >= 16 {
                        let (afterRecords, found) = try Self.walkAfterReadingEveryRecord(environment)
                        #expect(afterRecords == ofTheFile.problems, "after the records: page \(page) of \(place.database), byte \(offset) bit \(bit)")
                        leavesFoundWhole += found
                    }
                    compared += 1
                    if throughLMDB.readLMDBMap { throughMap += 1 }
                    if !ofTheFile.problems.isEmpty { damaged += 1 }
                }
            }
        }
        #expect(compared > 500)
        #expect(leavesFoundWhole > compared, "the walks of the records found \(leavesFoundWhole) leaves whole")
        #expect(throughMap * 10 >= compared * 9, "\(throughMap) of \(compared) walks read LMDB's map")
        #expect(damaged * 4 >= compared, "\(damaged) of \(compared) flips named")
    }

    /// Every record of every database read through cursors reading ahead with `PageScans` (a
    /// database LMDB refuses to read is passed over), then the structure walk of the same snapshot,
    /// which does not read again the leaves they found whole; and how many they found.
    static func walkAfterReadingEveryRecord(_ environment: Environment) throws -> ([PageProblem], Int) {
        try environment.read { txn in
            let scans = try #require(PageScans(txn))
            let main = try txn.openDatabase(named: nil)
            var names: [String] = []
            try? txn.withCursor(main, readingAhead: true, scans: scans) { cursor in
                var entry = try cursor.first()
                while let (key, _) = entry {
                    names.append(String(decoding: key, as: UTF8.self))
                    entry = try cursor.next()
                }
            }
            for name in names {
                guard let database = try? txn.openDatabase(named: name) else { continue }
                try? txn.withCursor(database, readingAhead: true, scans: scans) { cursor in
                    var entry = try cursor.first()
                    while entry != nil { entry = try cursor.next() }
                }
            }
            let found = (0..<scans.pages).filter { scans.contains($0) }.count
            return (try environment.walkStructure(in: txn, scans: scans), found)
        }
    }
}
