import FlowDomain
import FlowLog
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLogLMDB

/// `flowlog import` stages a large import and commits it in steps (`FLOWLOG_TEST_IMPORT_STEP_PAGES`
/// makes every import staged, in steps of a few pages, so that tens of thousands of events take
/// hundreds of them): SIGKILL in the middle, or a line refused at the end, leaves the log exactly as
/// it was, and a path that held no log without one.
@Suite("flowlog import in steps, killed or refused", .serialized)
struct StagedImportCLITests {
    /// A log of 40,000 events over 200 sessions, and its export, made once for the suite.
    nonisolated(unsafe) private static let source: (folder: TemporaryDirectory, lines: [String]) = {
        let folder = TemporaryDirectory()
        var rng = SplitMix64(seed: 21)
        let generator = RandomCommands()
        let commands = (0..<40_000).map { _ in
            WireCommand.encode(CommandEnvelope(stream: "s\(Int.random(in: 0..<200, using: &rng))", command: generator.command(using: &rng)))
        }
        _ = try! FlowLogProcess.run(["send", "--db", folder.child("source")], stdin: commands.joined(separator: "\n") + "\n")
        let export = try! FlowLogProcess.run(["export", "--db", folder.child("source")]).stdout
        return (folder, export.split(separator: "\n").map(String.init))
    }()

    private static let stepPages = ["FLOWLOG_TEST_IMPORT_STEP_PAGES": "8"]

    private static func write(_ lines: some Sequence<String>, to path: String) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// Starts `flowlog import FILE --db DB` in steps of a few pages.
    private static func startImport(_ file: String, into db: String) throws -> Process {
        let process = Process()
        process.executableURL = FlowLogProcess.executable
        process.arguments = ["import", file, "--db", db]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "FLOWLOG_DB")
        environment.merge(stepPages) { $1 }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// SIGKILL once the staged copy at `db` has committed `events` events (many steps), while the
    /// import runs; returns whether the kill came before the import ended.
    private static func kill(_ process: Process, onceStagedHolds events: Int, in db: String) -> Bool {
        let staging = db + "/" + LMDBEventLog.stagedImportName
        while process.isRunning {
            // The copy is opened read-only for a moment (its own lock, not the log's), as any reader could.
            if let staged = try? LMDBEventLog(path: staging, access: .readOnly), let last = try? staged.lastPosition(), last >= events {
                Foundation.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return process.terminationReason == .uncaughtSignal
            }
            usleep(2_000)
        }
        return false
    }

    private static func data(_ db: String) -> Data? { FileManager.default.contents(atPath: db + "/data.mdb") }

    @Test func aKilledImportLeavesTheLogAsItWasAndTheNextImportCompletesIt() throws {
        let folder = TemporaryDirectory()
        let lines = Self.source.lines
        let template = folder.child("template")
        try Self.write(lines[..<2_000], to: folder.child("head.ndjson"))
        try Self.write(lines[2_000...], to: folder.child("rest.ndjson"))
        #expect(try FlowLogProcess.run(["import", folder.child("head.ndjson"), "--db", template]).status == 0)
        let before = try #require(Self.data(template))
        let exportBefore = try FlowLogProcess.run(["export", "--db", template]).stdout
        // A fast import may end before the kill: then again, on a fresh copy.
        var db = ""
        var killed = false
        for attempt in 0..<5 where !killed {
            db = folder.child("log-\(attempt)")
            try FileManager.default.copyItem(atPath: template, toPath: db)
            let process = try Self.startImport(folder.child("rest.ndjson"), into: db)
            killed = Self.kill(process, onceStagedHolds: 2_000 + 3_000, in: db)
        }
        try #require(killed, "every import ended before the kill")
        #expect(FileManager.default.fileExists(atPath: db + "/" + LMDBEventLog.stagedImportName), "the killed import's copy is left")
        #expect(Self.data(db) == before, "the log's file was never written")
        #expect(try FlowLogProcess.run(["export", "--db", db]).stdout == exportBefore)
        #expect(try FlowLogProcess.run(["verify", "--db", db]).status == 0)

        // The next import removes what the killed one left and completes the log.
        let again = try FlowLogProcess.run(["import", folder.child("rest.ndjson"), "--db", db], environment: Self.stepPages)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db + "/" + LMDBEventLog.stagedImportName))
        #expect(try FlowLogProcess.run(["export", "--db", db]).stdout == lines.joined(separator: "\n") + "\n")
        #expect(try FlowLogProcess.run(["replay", "--verify", "--db", db]).status == 0)
    }

    @Test func aKilledImportIntoANewPathLeavesNoLogThere() throws {
        let folder = TemporaryDirectory()
        let lines = Self.source.lines
        try Self.write(lines, to: folder.child("all.ndjson"))
        var db = ""
        var killed = false
        for attempt in 0..<5 where !killed {
            db = folder.child("new-\(attempt)")
            let process = try Self.startImport(folder.child("all.ndjson"), into: db)
            killed = Self.kill(process, onceStagedHolds: 3_000, in: db)
        }
        try #require(killed, "every import ended before the kill")
        let export = try FlowLogProcess.run(["export", "--db", db])
        #expect(export.status == 66, "no log there: \(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db + "/data.mdb"))

        let again = try FlowLogProcess.run(["import", folder.child("all.ndjson"), "--db", db])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: db).sorted() == ["data.mdb", "flowlog.lock"])
        #expect(try FlowLogProcess.run(["export", "--db", db]).stdout == lines.joined(separator: "\n") + "\n")
    }

    @Test func aLineRefusedAtTheEndLeavesNothingAtANewPathAndTheLogAsItWas() throws {
        let folder = TemporaryDirectory()
        var lines = Self.source.lines
        let last = lines.count - 1
        lines[last] = lines[last].replacingOccurrences(of: #""version":"#, with: #""version":9"#)
        try Self.write(lines, to: folder.child("bad.ndjson"))
        let new = folder.child("new")
        let refused = try FlowLogProcess.run(["import", folder.child("bad.ndjson"), "--db", new], environment: Self.stepPages)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("Line \(lines.count) of the import"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: new), "a refused import into a new path leaves nothing there")

        let db = folder.child("log")
        try Self.write(lines[..<100], to: folder.child("head.ndjson"))
        try Self.write(lines[100...], to: folder.child("rest.ndjson"))
        #expect(try FlowLogProcess.run(["import", folder.child("head.ndjson"), "--db", db]).status == 0)
        let before = try #require(Self.data(db))
        let intoLog = try FlowLogProcess.run(["import", folder.child("rest.ndjson"), "--db", db], environment: Self.stepPages)
        #expect(intoLog.status == 65)
        #expect(intoLog.stderr.contains("Line \(lines.count - 100) of the import"), "\(intoLog.stderr)")
        #expect(Self.data(db) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: db).sorted() == ["data.mdb", "flowlog.lock", "lock.mdb"])
    }

    /// A file-size limit stands in for a full disk (writes past it fail with EFBIG): the staged import
    /// stops with exit 74 and a sentence, and the log is as it was; a new path is left empty.
    @Test func aFullDiskStopsAStagedImportAndLeavesTheLogAsItWas() throws {
        let folder = TemporaryDirectory()
        let lines = Self.source.lines
        let db = folder.child("log")
        try Self.write(lines[..<2_000], to: folder.child("head.ndjson"))
        try Self.write(lines[2_000...], to: folder.child("rest.ndjson"))
        #expect(try FlowLogProcess.run(["import", folder.child("head.ndjson"), "--db", db]).status == 0)
        let before = try #require(Self.data(db))
        // Room for the copy of the log and about a megabyte more, in blocks of 512 bytes.
        let blocks = before.count / 512 + 2_048
        let limited = ["/bin/sh", "-c", "ulimit -f \(blocks); trap '' XFSZ; exec \"$0\" \"$@\""]
        let full = try FlowLogProcess.run(["import", folder.child("rest.ndjson"), "--db", db], environment: Self.stepPages, launcher: limited)
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("is full"), "\(full.stderr)")
        #expect(Self.data(db) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: db).sorted() == ["data.mdb", "flowlog.lock", "lock.mdb"])

        let new = folder.child("new")
        try Self.write(lines, to: folder.child("all.ndjson"))
        let intoNew = try FlowLogProcess.run(["import", folder.child("all.ndjson"), "--db", new], environment: Self.stepPages, launcher: limited)
        #expect(intoNew.status == 74, "\(intoNew.stderr)")
        #expect(!FileManager.default.fileExists(atPath: new))
    }

    /// A log another process holds open cannot have its file replaced: the import goes in place, in
    /// one transaction, as it always did.
    @Test func anImportIntoALogOpenElsewhereGoesInPlace() throws {
        let folder = TemporaryDirectory()
        let lines = Self.source.lines
        let db = folder.child("log")
        try Self.write(lines[..<100], to: folder.child("head.ndjson"))
        try Self.write(lines[100..<5_000], to: folder.child("rest.ndjson"))
        #expect(try FlowLogProcess.run(["import", folder.child("head.ndjson"), "--db", db]).status == 0)
        let held = try LMDBEventLog(path: db, access: .readOnly)
        let commitsBefore = try held.environment.read { $0.snapshotID }
        let imported = try FlowLogProcess.run(["import", folder.child("rest.ndjson"), "--db", db], environment: Self.stepPages)
        #expect(imported.status == 0, "\(imported.stderr)")
        // A replaced file would leave this open log reading the old one.
        #expect(try held.lastPosition() == 5_000, "the open log sees the import, committed in its own file")
        #expect(try held.environment.read { $0.snapshotID } == commitsBefore + 1, "in one transaction")
        #expect(!FileManager.default.fileExists(atPath: db + "/" + LMDBEventLog.stagedImportName))
    }
}
