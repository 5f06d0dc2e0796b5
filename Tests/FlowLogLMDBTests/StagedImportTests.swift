import FlowDomain
import FlowLogBasics
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogHistory
@testable import FlowLogLMDB

/// `flowlog import`'s staged import (`LMDBEventLog.importNDJSON(intoLogAt:…)`): built in a copy in
/// many committed steps, it is still all or nothing for the log, and folds and exports like an
/// import in one transaction. Steps of a few pages make a few thousand events take dozens of them.
@Suite("Staged import in steps")
struct StagedImportTests {
    /// A log of random commands over a few streams (orders and discounts included), and its export.
    private static func source(in folder: TemporaryDirectory, events: Int = 6_000, streams: Int = 12) throws -> (log: LMDBEventLog, lines: [String]) {
        let log = try LMDBEventLog(path: folder.child("source"))
        var rng = SplitMix64(seed: 11)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        while try log.lastPosition() < events {
            _ = try processor.handle(
                (0..<50).map { _ in CommandEnvelope(stream: "s\(Int.random(in: 0..<streams, using: &rng))", command: generator.command(using: &rng)) }
            )
        }
        return (log, try export(log).split(separator: "\n").map(String.init))
    }

    private static func export(_ log: LMDBEventLog) throws -> String {
        let output = BufferOutput()
        try EventExport(format: .ndjson).run(from: log, to: output)
        return output.text
    }

    /// Imports `lines` into the log at `path` through the staged import, in steps of `pages` pages.
    private static func stagedImport(_ lines: some Sequence<String>, into path: String, in folder: TemporaryDirectory, pages: Int = 8) throws -> Int {
        let file = folder.child("import-\(UInt64.random(in: 0...UInt64.max)).ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        // Size unknown (as from a pipe): staged even into a log that holds data.
        return try LMDBEventLog.importNDJSON(
            intoLogAt: path, from: LineReader(fileDescriptor: descriptor), expectedBytes: 0,
            progress: nil, pagesPerStep: pages)
    }

    private static func refusal(_ body: () throws -> Int) -> ImportError? {
        do {
            _ = try body()
            return nil
        } catch {
            if case .refusedImport(let refusal)? = error as? FlowLogError { return refusal }
            Issue.record("not a refusal: \(error)")
            return nil
        }
    }

    /// The last committed transaction's id: how many commits the log has seen.
    private static func commits(_ path: String) throws -> Int {
        try LMDBEventLog(path: path, access: .readOnly).environment.read { $0.snapshotID }
    }

    private static func data(_ path: String) -> Data? { FileManager.default.contents(atPath: path + "/data.mdb") }

    @Test func anImportInManyStepsExportsByteForByteTheSameAndFoldsAsTheSource() throws {
        let folder = TemporaryDirectory()
        let (source, lines) = try Self.source(in: folder)
        let path = folder.child("copy")
        #expect(try Self.stagedImport(lines, into: path, in: folder) == lines.count)
        #expect(try Self.commits(path) > 20, "the import was committed in many steps")
        #expect(!FileManager.default.fileExists(atPath: path + "/" + LMDBEventLog.stagedImportName))
        let copy = try LMDBEventLog(path: path, access: .readOnly)
        #expect(try Self.export(copy) == lines.joined(separator: "\n") + "\n")
        #expect(try copy.checkIntegrity().isIntact)
        let verified = try ReplayVerifier.verifyFingerprints(of: copy)
        #expect(verified.comparisons == lines.count && verified.disagreements.isEmpty)
        for stream in (0..<12).map({ "s\($0)" }) {
            #expect(try copy.state(ofStream: stream) == source.state(ofStream: stream), "\(stream)")
        }
        #expect(try (0..<12).reduce(0) { $0 + (try copy.state(ofStream: "s\($1)").state.orders.count) } > 12, "the streams placed orders")
    }

    /// Five times the streams that small steps hold (`ImportStart.streamsHeld`), interleaved: each
    /// is set aside on disk and taken back many times, and the log comes out as the source.
    @Test func streamsSetAsideAndMetAgainFoldAsTheSource() throws {
        let folder = TemporaryDirectory()
        let (source, lines) = try Self.source(in: folder, streams: 80)
        let path = folder.child("copy")
        #expect(try Self.stagedImport(lines, into: path, in: folder) == lines.count)
        let copy = try LMDBEventLog(path: path, access: .readOnly)
        #expect(try Self.export(copy) == lines.joined(separator: "\n") + "\n")
        #expect(try copy.checkIntegrity().isIntact)
        let verified = try ReplayVerifier.verifyFingerprints(of: copy)
        #expect(verified.comparisons == lines.count && verified.disagreements.isEmpty)
        #expect(try copy.streams().map(\.stream) == source.streams().map(\.stream))
        #expect(try copy.streams().map(\.version) == source.streams().map(\.version))
        for (stream, _) in try source.streams() {
            #expect(try copy.state(ofStream: stream) == source.state(ofStream: stream), "\(stream)")
            #expect(
                try copy.streamState(ofStream: stream, throughPosition: nil).state == source.streamState(ofStream: stream, throughPosition: nil).state
            )
        }
    }

    @Test func aVersionGapInAStreamSetAsideIsRefusedWithItsLine() throws {
        let folder = TemporaryDirectory()
        var lines = try Self.source(in: folder, streams: 80).lines
        let late = lines.count - 3
        let version = try #require(lines[late].firstRange(of: #/"version":(\d+),/#))
        let number = Int(lines[late][version].dropFirst(10).dropLast())!
        #expect(number > 1, "the stream was met before, and set aside since")
        lines[late].replaceSubrange(version, with: #""version":\#(number + 1),"#)
        let path = folder.child("new")
        let refused = Self.refusal { try Self.stagedImport(lines, into: path, in: folder) }
        #expect(refused?.line == late + 1, "\(String(describing: refused))")
        #expect(refused?.problem.contains("next version is \(number)") == true, "\(String(describing: refused))")
        #expect(!FileManager.default.fileExists(atPath: path + "/" + LMDBEventLog.stagedImportName))
    }

    @Test func aLineRefusedAfterManyStepsLeavesNoLogAtANewPath() throws {
        let folder = TemporaryDirectory()
        var lines = try Self.source(in: folder).lines
        let late = lines.count - 3
        lines[late] = lines[late].replacingOccurrences(of: #""position":\#(late + 1),"#, with: #""position":\#(late + 2),"#)
        let path = folder.child("new")
        let refused = Self.refusal { try Self.stagedImport(lines, into: path, in: folder) }
        #expect(refused?.line == late + 1, "\(String(describing: refused))")
        #expect(!FileManager.default.fileExists(atPath: path + "/" + LMDBEventLog.stagedImportName))
        #expect(!FileManager.default.fileExists(atPath: path + "/data.mdb"))
        #expect(throws: FlowLogError.notFound(path: path)) { try LMDBEventLog(path: path, access: .readOnly) }
    }

    @Test func aLineRefusedAfterManyStepsLeavesALogByteForByteAsItWas() throws {
        let folder = TemporaryDirectory()
        let (source, lines) = try Self.source(in: folder)
        let path = folder.child("target")
        let half = lines.count / 2
        do {
            // Closed before the staged imports: a log this process holds open would make them go in place.
            let target = try LMDBEventLog(path: path)
            try target.setSnapshotInterval(7)
            #expect(try Self.importInPlace(lines[..<half], into: target, in: folder) == half)
        }
        let before = try #require(Self.data(path))
        let exportBefore = try Self.export(try LMDBEventLog(path: path, access: .readOnly))
        let commitsBefore = try Self.commits(path)
        // The rest, with a late line that repeats the id of an event this import holds many steps earlier.
        var rest = Array(lines[half...])
        let earlier = try #require(rest[10].firstMatch(of: /"eventId":"([^"]+)"/)?.1)
        let repeated = try #require(rest[rest.count - 2].firstMatch(of: /"eventId":"([^"]+)"/)?.1)
        rest[rest.count - 2] = rest[rest.count - 2].replacingOccurrences(of: String(repeated), with: String(earlier))
        let refused = Self.refusal { try Self.stagedImport(rest, into: path, in: folder) }
        #expect(refused?.line == rest.count - 1, "\(String(describing: refused))")
        #expect(refused?.problem.contains("is already in the log, at position \(half + 11)") == true, "\(String(describing: refused))")
        #expect(Self.data(path) == before, "the log's file was never written")
        #expect(try Self.export(try LMDBEventLog(path: path, access: .readOnly)) == exportBefore)
        #expect(!FileManager.default.fileExists(atPath: path + "/" + LMDBEventLog.stagedImportName))

        // The same rest, whole, continues the log in many steps: streams, snapshots and orders as the source has them.
        #expect(try Self.stagedImport(lines[half...], into: path, in: folder) == lines.count - half)
        #expect(try Self.commits(path) > commitsBefore + 20)
        let imported = try LMDBEventLog(path: path, access: .readOnly)
        #expect(try Self.export(imported) == lines.joined(separator: "\n") + "\n")
        #expect(try imported.snapshotCount() > 0)
        #expect(try imported.checkIntegrity().isIntact)
        for stream in (0..<12).map({ "s\($0)" }) {
            #expect(try imported.state(ofStream: stream) == source.state(ofStream: stream), "\(stream)")
        }
    }

    @Test func whatAKilledImportLeftIsNoLogAndTheNextImportRemovesIt() throws {
        let folder = TemporaryDirectory()
        let lines = try Self.source(in: folder, events: 500).lines
        let path = folder.child("log")
        let staging = path + "/" + LMDBEventLog.stagedImportName
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: staging + "/data.mdb", contents: Data(repeating: 7, count: 10_000)))
        #expect(FileManager.default.createFile(atPath: staging + "/" + LMDBEventLog.copyingName, contents: Data(repeating: 8, count: 10_000)))
        #expect(FileManager.default.createFile(atPath: staging + "/lock.mdb", contents: Data()))
        #expect(FileManager.default.createFile(atPath: path + "/" + LogLock.fileName, contents: Data()))
        #expect(throws: FlowLogError.notFound(path: path)) { try LMDBEventLog(path: path, access: .readOnly) }
        #expect(try Self.stagedImport(lines, into: path, in: folder) == lines.count)
        #expect(!FileManager.default.fileExists(atPath: staging))
        #expect(try Self.export(try LMDBEventLog(path: path, access: .readOnly)) == lines.joined(separator: "\n") + "\n")
    }

    /// Imports `lines` into the open `log` in one transaction (`EventImporting.importNDJSON`).
    private static func importInPlace(_ lines: some Sequence<String>, into log: LMDBEventLog, in folder: TemporaryDirectory) throws -> Int {
        let file = folder.child("part-\(UInt64.random(in: 0...UInt64.max)).ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        return try log.importNDJSON(from: LineReader(fileDescriptor: descriptor), expectedBytes: 0, progress: nil)
    }
}
