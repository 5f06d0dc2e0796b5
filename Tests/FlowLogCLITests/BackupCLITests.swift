import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLogCLI

/// `flowlog backup --to DIR`: a consistent, compacted copy of a live log, made while writers go on,
/// that passes `verify`; a folder that exists and holds something, or lies inside a log, is refused.
@Suite("backup")
struct BackupCLITests {
    @Test func aBackupOfALiveLogIsAConsistentPrefixThatVerifies() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo"] + db)
        let lines = (0..<40_000).map {
            #"{"type":"cart.addProduct","stream":"w\#($0 % 50)","productId":"p\#($0 % 30)","unitPrice":100,"quantity":1}"#
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: folder.child("in"), atomically: true, encoding: .utf8)
        // A writer that goes on while the backup runs: many small batches through a slow pipe.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = [
            "-c", "while IFS= read -r line; do printf '%s\\n' \"$line\"; done < \"$0\" | \"$1\" send --db \"$2\" > /dev/null", folder.child("in"),
            FlowLogProcess.executable.path, folder.child("log"),
        ]
        try writer.run()
        defer { if writer.isRunning { kill(writer.processIdentifier, SIGKILL) } }
        var during = 0
        for _ in 0..<200 where during < 200 {
            usleep(20_000)
            during = (try? LMDBEventLog(path: folder.child("log"), access: .readOnly).lastPosition()) ?? 0
        }
        let backup = try FlowLogProcess.run(["backup", "--to", folder.child("copy"), "--format", "json"] + db)
        let stillWriting = writer.isRunning
        writer.waitUntilExit()
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(stillWriting, "the writer was still writing when the backup ended")
        let answer = try JSONParser.parse(backup.stdout)
        guard case .integer(let events)? = answer["events"] else {
            Issue.record("\(backup.stdout)")
            return
        }
        #expect(events >= during)
        let total = try LMDBEventLog(path: folder.child("log"), access: .readOnly).lastPosition()
        #expect(events < total, "the copy is of one moment, not of the end")
        let verify = try FlowLogProcess.run(["verify", "--db", folder.child("copy")])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        let copied = try FlowLogProcess.run(["export", "--db", folder.child("copy")]).stdoutLines
        let live = try FlowLogProcess.run(["export", "--db", folder.child("log")]).stdoutLines
        #expect(copied.count == events)
        #expect(copied == Array(live.prefix(events)), "the copy holds exactly the first events of the live log")
        let replay = try FlowLogProcess.run(["replay", "--verify", "--db", folder.child("copy")])
        #expect(replay.status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.child("copy")).sorted()
        #expect(!files.contains("data.mdb.partial"))
    }

    @Test func aFolderThatHoldsSomethingOrLiesInsideALogIsRefused() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo"] + db)
        try FileManager.default.createDirectory(atPath: folder.child("full"), withIntermediateDirectories: false)
        try "keep me".write(toFile: folder.child("full/notes.txt"), atomically: true, encoding: .utf8)
        try "x".write(toFile: folder.child("file"), atomically: true, encoding: .utf8)
        for (target, message) in [
            (folder.child("full"), "is not empty"), (folder.child("log"), "inside"), (folder.child("log/sub"), "inside"),
            (folder.child("file"), "is a file"),
        ] {
            let result = try FlowLogProcess.run(["backup", "--to", target] + db)
            #expect(result.status == 64, "\(target): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(target): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.child("full")) == ["notes.txt"])
        #expect(!FileManager.default.fileExists(atPath: folder.child("log/sub")))
        let missingParent = try FlowLogProcess.run(["backup", "--to", folder.child("a/b")] + db)
        #expect(missingParent.status == 73, "\(missingParent.stderr)")
        let missingLog = try FlowLogProcess.run(["backup", "--to", folder.child("c"), "--db", folder.child("nolog")])
        #expect(missingLog.status == 66)
        #expect(!FileManager.default.fileExists(atPath: folder.child("c")), "a refused backup leaves nothing")
        // An empty folder is fine, and so is one that holds only what a killed backup left.
        try FileManager.default.createDirectory(atPath: folder.child("empty"), withIntermediateDirectories: false)
        #expect(try FlowLogProcess.run(["backup", "--to", folder.child("empty")] + db).status == 0)
        try FileManager.default.createDirectory(atPath: folder.child("killed"), withIntermediateDirectories: false)
        try "half".write(toFile: folder.child("killed/data.mdb.partial"), atomically: true, encoding: .utf8)
        let resumed = try FlowLogProcess.run(["backup", "--to", folder.child("killed")] + db)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.hasPrefix("backed up 17 events of \(folder.child("log")) into \(folder.child("killed"))"), "\(resumed.stdout)")
        #expect(try FlowLogProcess.run(["verify", "--db", folder.child("killed")]).status == 0)
    }

    @Test func aLogWithoutBackupsSaysWhatToUseInstead() {
        #expect {
            _ = try BackupCommand.backupCapability(of: InMemoryEventLog())
        } throws: { error in
            guard let failure = error as? CLIFailure else { return false }
            return failure.status == .usage && failure.message?.contains("flowlog export") == true
                && failure.message?.contains("flowlog import") == true
        }
    }
}
