import FlowLogTesting
import Testing

@testable import FlowLogLMDB
@testable import LMDB

/// `SortedPuts` writes what it gathered in key order: the database must end up exactly as if each
/// put had been made on its own, whatever order they came in.
@Suite("Sorted puts")
struct SortedPutsTests {
    private func withDatabase(_ body: (Environment, Database) throws -> Void) throws {
        let folder = TemporaryDirectory()
        let environment = try Environment(path: folder.path)
        let database = try environment.openDatabases(named: ["test"], create: true)[0]
        try body(environment, database)
    }

    private func contents(_ environment: Environment, _ database: Database) throws -> [([UInt8], [UInt8])] {
        try environment.read { txn in
            try txn.withCursor(database) { cursor in
                var result: [([UInt8], [UInt8])] = []
                var record = try cursor.first()
                while let (key, value) = record {
                    result.append((Array(key), Array(value)))
                    record = try cursor.next()
                }
                return result
            }
        }
    }

    private func add(_ puts: inout SortedPuts, _ key: [UInt8], _ value: [UInt8], tag: Int, run: Int? = nil) {
        key.withUnsafeBytes { keyBytes in value.withUnsafeBytes { puts.add(key: keyBytes, value: $0, tag: tag, run: run) } }
    }

    @Test(arguments: [1, 2, 3])
    func shuffledPutsLeaveTheSameDatabaseAsSinglePuts(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        // Keys of different lengths sharing prefixes, where bytes-then-length order matters.
        var keys = Set<[UInt8]>()
        while keys.count < 2_000 {
            keys.insert((0..<Int(random.next() % 6 + 1)).map { _ in UInt8(random.next() % 4) })
        }
        let shuffled = Array(keys).shuffled(using: &random)
        try withDatabase { environment, database in
            var puts = SortedPuts()
            for (tag, key) in shuffled.enumerated() { add(&puts, key, [UInt8(tag % 256)], tag: tag) }
            try environment.write { txn in _ = try puts.write(to: database, in: txn) }
            #expect(puts.isEmpty, "a write forgets what it wrote")
            let stored = try contents(environment, database)
            let expected = shuffled.enumerated().map { ($0.element, [UInt8($0.offset % 256)]) }
                .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            #expect(stored.map(\.0) == expected.map(\.0))
            #expect(stored.map(\.1) == expected.map(\.1))
        }
    }

    @Test(arguments: [false, true])
    func anAppendingBatchThatStartsInsideTheDatabaseWritesEveryKey(presorted: Bool) throws {
        try withDatabase { environment, database in
            var first = SortedPuts()
            for key in stride(from: 0, to: 2_000, by: 2) { add(&first, [UInt8(key >> 8), UInt8(key & 0xFF)], [1], tag: key) }
            try environment.write { txn in _ = try first.write(to: database, in: txn, appending: true) }
            // Odd keys interleave with the stored even ones, then keys run past the database's end.
            var second = SortedPuts()
            for key in Array(stride(from: 1, to: 2_000, by: 2)) + Array(2_000..<3_000) {
                add(&second, [UInt8(key >> 8), UInt8(key & 0xFF)], [2], tag: key)
            }
            if presorted { second.sort() }
            try environment.write { txn in _ = try second.write(to: database, in: txn, flags: .noOverwrite, appending: true) }
            let stored = try contents(environment, database)
            #expect(stored.map { Int($0.0[0]) << 8 | Int($0.0[1]) } == Array(0..<3_000))
            #expect(stored.map(\.1) == (0..<3_000).map { $0 < 2_000 && $0 % 2 == 0 ? [1] : [2] })
        }
    }

    @Test func afterARefusedAppendTheNextAttemptsWaitTwiceAsLongEachTime() {
        var attempts = SortedPuts.AppendAttempts(enabled: true)
        var pattern: [Bool] = []
        for _ in 0..<16 {
            let tried = attempts.shouldTry()
            pattern.append(tried)
            if tried { attempts.refused() }
        }
        // Tries at 0, then after skipping 1, 2, 4 and 8 puts.
        #expect(pattern.enumerated().filter(\.element).map(\.offset) == [0, 2, 5, 10])
        var disabled = SortedPuts.AppendAttempts(enabled: false)
        let triedWhenDisabled = disabled.shouldTry()
        #expect(!triedWhenDisabled)
    }

    @Test func aCopyWritesOnlyWhatItWasGiven() throws {
        var first = SortedPuts()
        add(&first, [1], [10], tag: 1)
        var second = first
        add(&second, [2], [20], tag: 2)
        add(&first, [3], [30], tag: 3)
        try withDatabase { environment, database in
            try environment.write { txn in _ = try first.write(to: database, in: txn) }
            #expect(try contents(environment, database).map(\.1) == [[10], [30]])
        }
        try withDatabase { environment, database in
            try environment.write { txn in _ = try second.write(to: database, in: txn) }
            #expect(try contents(environment, database).map(\.1) == [[10], [20]])
        }
    }

    /// Small run numbers (an import's stream slots) and any others (looked up another way).
    @Test(arguments: [(7, 3), (-5, 1_000_000_000)])
    func runsAreOrderedByTheirFirstKeysAndKeepTheirOwnOrder(runs: (b: Int, a: Int)) throws {
        try withDatabase { environment, database in
            var puts = SortedPuts()
            // Interleaved like an import's stream index: stream b, then a, then b again.
            add(&puts, Array("b\u{0}1".utf8), [1], tag: 1, run: runs.b)
            add(&puts, Array("a\u{0}1".utf8), [2], tag: 2, run: runs.a)
            add(&puts, Array("b\u{0}2".utf8), [3], tag: 3, run: runs.b)
            add(&puts, Array("a\u{0}2".utf8), [4], tag: 4, run: runs.a)
            #expect(puts.tagsInWriteOrder() == [2, 4, 1, 3])
            try environment.write { txn in _ = try puts.write(to: database, in: txn) }
            #expect(try contents(environment, database).map(\.1) == [[2], [4], [1], [3]])
        }
    }

    /// Keys that all begin alike (streams named `session-N`, ids of one prefix) are ordered by the
    /// bytes after the ones they share, as LMDB orders them: byte by byte, a key before the longer
    /// keys it begins, equal keys in the order added.
    @Test(arguments: [1, 2, 3])
    func keysThatBeginAlikeAreOrderedByTheBytesAfter(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let shapes: [(Int) -> [UInt8]] = [
            { _ in Array("session-\(random.next() % 100_000)".utf8) },
            // Equal keys, and a key beside itself with a zero after it.
            { _ in Array("session-\(random.next() % 20)".utf8) + (random.next() % 2 == 0 ? [0] : []) },
            { _ in Array("a-long-shared-beginning/".utf8) + (0..<Int(random.next() % 12)).map { _ in UInt8(random.next() % 3) } },
        ]
        for shape in shapes {
            let keys = (0..<2_000).map(shape)
            var puts = SortedPuts()
            for (tag, key) in keys.enumerated() { add(&puts, key, [1], tag: tag) }
            let expected = keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0].lexicographicallyPrecedes(keys[$1]) : $0 < $1 }
            #expect(puts.tagsInWriteOrder() == expected)
        }
    }

    /// The radix sort behind the order of puts without runs: ascending, equal values in the order
    /// given, whichever bytes the values share or not (a byte they all share is skipped).
    @Test(arguments: [1, 2, 3])
    func radixSortedOrdersLikeAStableSort(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let shapes: [(Int) -> UInt64] = [
            { _ in random.next() },
            { _ in 0x0123_4567_89AB_0000 | random.next() % 0x1_0000 },  // time-ordered ids: shared leading bytes
            { _ in random.next() % 8 },  // many equal values
            { _ in 0xFF00_0000_0000_00FF },  // all equal
        ]
        for shape in shapes {
            let values = (0..<3_000).map(shape)
            let expected = values.indices.sorted { values[$0] != values[$1] ? values[$0] < values[$1] : $0 < $1 }
            #expect(SortedPuts.radixSorted(prefixes: values) == expected)
        }
        #expect(SortedPuts.radixSorted(prefixes: []) == [])
    }

    /// Keys longer than the eight bytes the radix sort looks at, sharing their first bytes: the
    /// rest of the key decides, as LMDB's comparison does.
    @Test func keysThatShareTheirFirstEightBytesAreOrderedByTheRest() throws {
        var random = SplitMix64(seed: 7)
        let keys = (0..<2_000).map { _ in
            [0, 1, 2, 3, 4, 5, 6, UInt8(random.next() % 2)] + (0..<Int(random.next() % 4)).map { _ in UInt8(random.next() % 3) }
        }
        var puts = SortedPuts()
        for (tag, key) in keys.enumerated() { add(&puts, key, [], tag: tag) }
        let expected = keys.indices.sorted { left, right in
            keys[left] != keys[right] ? keys[left].lexicographicallyPrecedes(keys[right]) : left < right
        }
        #expect(puts.tagsInWriteOrder() == expected)
    }

    @Test func noOverwriteReportsTheEarliestRefusedPutAndKeepsTheRest() throws {
        try withDatabase { environment, database in
            var puts = SortedPuts()
            add(&puts, [5], [0], tag: 1)
            try environment.write { txn in _ = try puts.write(to: database, in: txn, flags: .noOverwrite, appending: true) }
            add(&puts, [9], [1], tag: 10)
            add(&puts, [5], [1], tag: 30)  // in the database already
            add(&puts, [7], [1], tag: 20)
            add(&puts, [7], [2], tag: 40)  // the same key twice in one batch: the later one is refused
            add(&puts, [1], [1], tag: 50)  // sorts before the last key: appending must fall back
            #expect(puts.tagsInWriteOrder() == [50, 30, 20, 40, 10])
            let refused = try environment.write { txn in try puts.write(to: database, in: txn, flags: .noOverwrite, appending: true) }
            #expect(refused?.tag == 30)
            #expect(refused?.key == [5])
            #expect(try contents(environment, database).map { $0.0 + $0.1 } == [[1, 1], [5, 0], [7, 1], [9, 1]])
        }
    }

    /// Puts are counted by the gaps between the database's keys they fall into: neighbours share
    /// one, keys past the last share the end, and a write that goes on in the gap where the one
    /// before it ended counts that gap once.
    @Test func putsAreCountedByTheGapsTheyFallInto() throws {
        try withDatabase { environment, database in
            try environment.write { txn in
                for key in ["b", "d", "f"] { try txn.put(database, key: Array(key.utf8), value: [1]) }
            }
            try environment.write { txn in
                var puts = SortedPuts()
                for key in ["h", "c2", "a", "c1", "e", "g", "c3"] { add(&puts, Array(key.utf8), [2], tag: 0) }
                _ = try puts.write(to: database, in: txn, countingGaps: true)
                // a | c1 c2 c3 | e | g h
                #expect(puts.gapsCounted == 4)
                add(&puts, Array("i".utf8), [2], tag: 0)
                _ = try puts.write(to: database, in: txn, countingGaps: true)
                #expect(puts.gapsCounted == 4)
                add(&puts, Array("ca".utf8), [2], tag: 0)
                _ = try puts.write(to: database, in: txn, countingGaps: true)
                #expect(puts.gapsCounted == 5)
            }
            #expect(
                try contents(environment, database).map { String(decoding: $0.0, as: UTF8.self) }
                    == ["a", "b", "c1", "c2", "c3", "ca", "d", "e", "f", "g", "h", "i"])
        }
    }

    /// A stream index's key: the stream's name, 0x00, the big-endian version.
    private func indexKey(_ stream: Int, _ version: Int) -> [UInt8] {
        Array("session-\(stream)".utf8) + [0] + withUnsafeBytes(of: UInt64(version).bigEndian, Array.init)
    }

    /// An import's step counts on `insertedPages` and `appendedPages` to bound the pages LMDB holds:
    /// they must cover the pages a write adds, the stream index's case (versions of many streams,
    /// each put after its stream's last key) and the records' (put after the database's last key).
    @Test func thePageEstimatesCoverThePagesTheWritesAdd() throws {
        try withDatabase { environment, database in
            let position = [UInt8](repeating: 7, count: 8)
            // 300 streams of 60 versions, written a version of each at a time, as a log grows.
            for version in 1...60 {
                var puts = SortedPuts()
                for stream in 0..<300 { add(&puts, indexKey(stream, version), position, tag: 0, run: stream) }
                try environment.write { txn in _ = try puts.write(to: database, in: txn) }
            }
            var index = SortedPuts()
            for stream in 0..<300 {
                for version in 61...235 { add(&index, indexKey(stream, version), position, tag: 0, run: stream) }
            }
            let estimate = index.insertedPages
            let added = try environment.write { txn in
                let before = try txn.pageCount(database)
                _ = try index.write(to: database, in: txn)
                return try txn.pageCount(database) - before
            }
            #expect(added <= estimate, "\(added) pages added, \(estimate) estimated")
            #expect(estimate <= added * 2, "the estimate stays near the pages added (\(added), \(estimate) estimated)")

            let records = try environment.openDatabases(named: ["records"], create: true)[0]
            var appended = SortedPuts()
            let record = [UInt8](repeating: 1, count: 280)
            for number in 1...5_000 { add(&appended, withUnsafeBytes(of: UInt64(number).bigEndian, Array.init), record, tag: 0) }
            let appendEstimate = appended.appendedPages
            let appendedPages = try environment.write { txn in
                _ = try appended.write(to: records, in: txn, appending: true)
                return try txn.pageCount(records)
            }
            #expect(appendedPages <= appendEstimate + 2, "\(appendedPages) pages, \(appendEstimate) estimated (and a branch page or two)")
            #expect(appendEstimate <= appendedPages * 11 / 10, "\(appendedPages) pages, \(appendEstimate) estimated")
        }
    }
}
