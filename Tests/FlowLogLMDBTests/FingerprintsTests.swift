import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogSystem
import FlowLogTesting
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogHistory
@testable import FlowLogLMDB

/// Fingerprints live in their own database, keyed by position; logs that kept them in 16-byte
/// stream-index values (before it) still verify, read-only or with new events appended.
@Suite("Fingerprints by position")
struct FingerprintsTests {
    private func fill(_ log: LMDBEventLog, until last: Int, seed: UInt64 = 5) throws {
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: UInt64(try log.lastPosition())))
        while try log.lastPosition() < last {
            _ = try processor.handle(
                (0..<5).map { _ in CommandEnvelope(stream: ["a", "b", "c", "d"].randomElement(using: &rng)!, command: generator.command(using: &rng))
                })
        }
    }

    /// Every entry of a database, in key order.
    private func entries(_ log: LMDBEventLog, _ database: Database) throws -> [(key: [UInt8], value: [UInt8])] {
        try log.reading { txn in
            try txn.withCursor(database) { cursor in
                var result: [([UInt8], [UInt8])] = []
                var entry = try cursor.first()
                while let (key, value) = entry {
                    result.append((Array(key), Array(value)))
                    entry = try cursor.next()
                }
                return result
            }
        }
    }

    /// Every fingerprint the `fingerprints` database holds, by position, from its runs.
    private func stored(_ log: LMDBEventLog) throws -> [(position: Int, fingerprint: UInt64)] {
        try entries(log, try #require(log.fingerprintsDB)).flatMap { key, value in
            #expect(value.count % 8 == 0 && !value.isEmpty && value.count <= FingerprintRuns.maximumRun * 8)
            let start = key.withUnsafeBytes { Keys.decodePosition($0) }
            return (0..<value.count / 8).map { offset in
                (start + offset, value.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset * 8, as: UInt64.self)) })
            }
        }
    }

    /// The stored run that holds `position`: its key and value.
    private func run(holding position: Int, _ log: LMDBEventLog) throws -> (key: [UInt8], value: [UInt8]) {
        let database = try #require(log.fingerprintsDB)
        let runs = try entries(log, database)
        return try #require(runs.last { $0.key.withUnsafeBytes { Keys.decodePosition($0) } <= position })
    }

    @Test func appendsAndImportsWriteOneFingerprintPerPositionAndEightByteIndexValues() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try fill(log, until: 300)
        let last = try log.lastPosition()
        let fingerprints = try stored(log)
        #expect(fingerprints.map(\.position) == Array(1...last))
        #expect(try entries(log, log.streamIndexDB).allSatisfy { $0.value.count == 8 })
        let report = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(report.comparisons == last && report.disagreements.isEmpty)

        // Through `flowlog import`'s pipeline, and through `ImportSink`.
        let output = BufferOutput()
        try EventExport(format: .ndjson).run(from: log, to: output)
        let file = folder.child("export.ndjson")
        try output.text.write(toFile: file, atomically: false, encoding: .utf8)
        let piped = try LMDBEventLog(path: folder.child("piped"))
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        _ = try piped.importNDJSON(from: LineReader(fileDescriptor: descriptor), expectedBytes: output.bytes.count, progress: nil)
        let sunk = try LMDBEventLog(path: folder.child("sunk"))
        _ = try sunk.importEvents { sink in
            for (index, line) in output.text.split(separator: "\n").enumerated() {
                var bytes = Array(line.utf8)
                try sink.add(try bytes.withUnsafeMutableBytes { try RecordedEventJSON.decode(UnsafeRawBufferPointer($0)) }, line: index + 1)
            }
        }
        for copy in [piped, sunk] {
            let imported = try stored(copy)
            #expect(imported.map(\.position) == fingerprints.map(\.position))
            #expect(imported.map(\.fingerprint) == fingerprints.map(\.fingerprint), "an import folds to the fingerprints the appends recorded")
            #expect(try entries(copy, copy.streamIndexDB).allSatisfy { $0.value.count == 8 })
        }
    }

    /// A walk may begin inside a run, at its first position or between two runs.
    @Test func aWalkFromAnyPositionReadsTheFingerprintsOfTheRunsItMeets() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try fill(log, until: 120)
        _ = try log.append([
            AppendRequest(
                stream: "z", expectedVersion: nil, commandId: nil,
                events: [
                    NewEvent(
                        eventId: EventID(high: 1, low: 1), timestamp: Timestamp(microseconds: 1), actor: .user, event: .navigation(.modalPresented))
                ])
        ])
        try fill(log, until: 200, seed: 8)
        var all: [(Int, UInt64?)] = []
        try log.forEachEventWithFingerprint(from: 1, through: nil) {
            all.append(($0.position, $1))
            return true
        }
        #expect(all.filter { $0.1 == nil }.count == 1, "the one event appended without a fingerprint")
        for from in [1, 2, 3, 4, 5, 6, 7, 50, all.first { $0.1 == nil }!.0, all.first { $0.1 == nil }!.0 + 1, all.count] {
            var suffix: [(Int, UInt64?)] = []
            try log.forEachEventWithFingerprint(from: from, through: nil) {
                suffix.append(($0.position, $1))
                return true
            }
            #expect(suffix.map(\.0) == all.dropFirst(from - 1).map(\.0))
            #expect(suffix.map(\.1) == all.dropFirst(from - 1).map(\.1), "from \(from)")
        }
    }

    /// Rewrites a log into the layout before the `fingerprints` database: each fingerprint after the
    /// position in its stream-index value, and no database.
    private func makeOlderLayout(at path: String) throws {
        let log = try LMDBEventLog(path: path, foldPolicy: .foldingEveryCommit)
        let fingerprintsDB = try #require(log.fingerprintsDB)
        let byPosition = Dictionary(
            uniqueKeysWithValues: try stored(log).map { ($0.position, withUnsafeBytes(of: $0.fingerprint.littleEndian, Array.init)) })
        let index = try entries(log, log.streamIndexDB)
        try log.environment.write { txn in
            for (key, value) in index {
                let position = value.withUnsafeBytes { Keys.decodePosition($0) }
                try txn.put(log.streamIndexDB, key: key, value: value + byPosition[position]!)
            }
            try txn.drop(fingerprintsDB)
        }
    }

    @Test func aLogOfTheOlderLayoutVerifiesReadOnlyAndWithNewEvents() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        let oldLast = try {
            let log = try LMDBEventLog(path: path, foldPolicy: .foldingEveryCommit)
            try fill(log, until: 200)
            return try log.lastPosition()
        }()
        try makeOlderLayout(at: path)
        do {
            let old = try LMDBEventLog(path: path, access: .readOnly)
            #expect(old.fingerprintsDB == nil)
            let report = try ReplayVerifier.verifyFingerprints(of: old)
            #expect(report.comparisons == oldLast && report.disagreements.isEmpty)
            #expect(try old.checkIntegrity().isIntact)
        }
        // Opened for writing, it gains the database; new events go there, old ones stay in the index.
        let log = try LMDBEventLog(path: path, foldPolicy: .foldingEveryCommit)
        try fill(log, until: 400, seed: 9)
        let last = try log.lastPosition()
        #expect(try stored(log).map(\.position) == Array(oldLast + 1...last))
        let report = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(report.comparisons == last && report.disagreements.isEmpty)
        #expect(try log.checkIntegrity().isIntact)
        // A damaged fingerprint in an old index value is reported where it is.
        let victim = try log.events(from: 50, limit: 1)[0]
        try log.environment.write { txn in
            var value = Array(try txn.get(log.streamIndexDB, key: Keys.streamVersion(victim.stream, victim.version))!)
            value[12] ^= 0x10
            try txn.put(log.streamIndexDB, key: Keys.streamVersion(victim.stream, victim.version), value: value)
        }
        let damaged = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(damaged.disagreements.map(\.stream) == [victim.stream])
        #expect(damaged.disagreements.first?.position == 50)
    }

    @Test(arguments: [1, 77, 150])
    func aDamagedFingerprintIsReportedAtItsPosition(position: Int) throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try fill(log, until: 150)
        let victim = try log.events(from: position, limit: 1)[0]
        let fingerprintsDB = try #require(log.fingerprintsDB)
        let (key, value) = try run(holding: position, log)
        let start = key.withUnsafeBytes { Keys.decodePosition($0) }
        try log.environment.write { txn in
            var flipped = value
            flipped[(position - start) * 8 + 3] ^= 0x04
            try txn.put(fingerprintsDB, key: key, value: flipped)
        }
        let report = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(report.disagreements.map(\.stream) == [victim.stream])
        #expect(report.disagreements.first?.position == position)
        #expect(report.disagreements.first?.version == victim.version)

        // A run that is not whole fingerprints cannot be compared: the walk stops where it starts.
        try log.environment.write { txn in try txn.put(fingerprintsDB, key: key, value: Array(value.dropLast(4))) }
        #expect {
            _ = try ReplayVerifier.verifyFingerprints(of: log)
        } throws: { error in
            guard case .damaged(let damage)? = error as? FlowLogError else { return false }
            return damage.position == start
        }
    }
}
