@testable import FlowLogLMDB
@testable import FlowLog
import FlowDomain
import FlowLogTesting
import LMDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Fingerprints live in their own database, keyed by position; logs that kept them in 16-byte
/// stream-index values (before it) still verify, read-only or with new events appended.
@Suite("Fingerprints by position")
struct FingerprintsTests {
    private func fill(_ log: LMDBEventLog, until last: Int, seed: UInt64 = 5) throws {
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: UInt64(try log.lastPosition())))
        while try log.lastPosition() < last {
            _ = try processor.handle((0..<5).map { _ in CommandEnvelope(stream: ["a", "b", "c", "d"].randomElement(using: &rng)!, command: generator.command(using: &rng)) })
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

    @Test func appendsAndImportsWriteOneFingerprintPerPositionAndEightByteIndexValues() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try fill(log, until: 300)
        let last = try log.lastPosition()
        let fingerprints = try entries(log, try #require(log.fingerprintsDB))
        #expect(fingerprints.map { Keys.decodePosition(UnsafeRawBufferPointer(start: $0.key, count: 8)) } == Array(1...last))
        #expect(fingerprints.allSatisfy { $0.value.count == 8 })
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
            let imported = try entries(copy, try #require(copy.fingerprintsDB))
            #expect(imported.map(\.key) == fingerprints.map(\.key))
            #expect(imported.map(\.value) == fingerprints.map(\.value), "an import folds to the fingerprints the appends recorded")
            #expect(try entries(copy, copy.streamIndexDB).allSatisfy { $0.value.count == 8 })
        }
    }

    /// Rewrites a log into the layout before the `fingerprints` database: each fingerprint after the
    /// position in its stream-index value, and no database.
    private func makeOlderLayout(at path: String) throws {
        let log = try LMDBEventLog(path: path)
        let fingerprintsDB = try #require(log.fingerprintsDB)
        let byPosition = Dictionary(uniqueKeysWithValues: try entries(log, fingerprintsDB).map {
            (Keys.decodePosition(UnsafeRawBufferPointer(start: $0.key, count: 8)), $0.value)
        })
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
            let log = try LMDBEventLog(path: path)
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
        let log = try LMDBEventLog(path: path)
        try fill(log, until: 400, seed: 9)
        let last = try log.lastPosition()
        let positions = try entries(log, try #require(log.fingerprintsDB)).map { Keys.decodePosition(UnsafeRawBufferPointer(start: $0.key, count: 8)) }
        #expect(positions == Array(oldLast + 1...last))
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
        try log.environment.write { txn in
            var value = Array(try txn.get(fingerprintsDB, key: Keys.position(position))!)
            value[3] ^= 0x04
            try txn.put(fingerprintsDB, key: Keys.position(position), value: value)
        }
        let report = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(report.disagreements.map(\.stream) == [victim.stream])
        #expect(report.disagreements.first?.position == position)
        #expect(report.disagreements.first?.version == victim.version)

        // A value of the wrong length cannot be compared: the walk stops there, naming it.
        try log.environment.write { txn in try txn.put(fingerprintsDB, key: Keys.position(position), value: [1, 2, 3, 4]) }
        #expect {
            _ = try ReplayVerifier.verifyFingerprints(of: log)
        } throws: { error in
            guard case .damaged(let damage)? = error as? FlowLogError else { return false }
            return damage.position == position && damage.stream == victim.stream
        }
    }
}
