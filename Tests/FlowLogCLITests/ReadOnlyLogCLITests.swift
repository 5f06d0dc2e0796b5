import FlowLogTesting
import Foundation
import Testing

/// A log the user may read but not write (a folder of mode 0555 with files of mode 0444, with or
/// without its lock file) is read by every reading command; a writing command says why it cannot
/// write (77) and changes nothing. The commands run as `nobody` when the tests run as root.
@Suite("reading a log that cannot be written")
struct ReadOnlyLogCLITests {
    static let readingCommands: [[String]] = [
        ["state", "--stream", "demo-1"], ["state", "--stream", "demo-1", "--at", "9", "--format", "json"], ["view", "--stream", "demo-1"],
        ["log"], ["log", "--format", "json"], ["replay", "--summary"], ["replay", "--stream", "demo-1"], ["replay", "--verify"],
        ["export"], ["export", "--format", "csv"], ["verify"], ["orders"], ["orders", "--stream", "demo-1", "--format", "json"],
        ["projections", "status"], ["snapshots"],
        ["bisect", "--stream", "demo-1", "--invariant", "all"],
    ]

    /// A copy of a demo log at `folder/name`, made unwritable: files 0444, folder 0555.
    private func readOnlyLog(in folder: TemporaryDirectory, keepingLockFile: Bool) throws -> String {
        let source = folder.child("source")
        let made = try FlowLogProcess.run(["demo", "--db", source])
        #expect(made.status == 0, "\(made.stderr)")
        let log = folder.child(keepingLockFile ? "with-lock" : "without-lock")
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: source + "/data.mdb", toPath: log + "/data.mdb")
        if keepingLockFile { try FileManager.default.copyItem(atPath: source + "/lock.mdb", toPath: log + "/lock.mdb") }
        for file in ["data.mdb", "lock.mdb"] where FileManager.default.fileExists(atPath: log + "/" + file) {
            chmod(log + "/" + file, 0o444)
        }
        chmod(log, 0o555)
        chmod(folder.path, 0o755)
        return log
    }

    @Test(arguments: [true, false])
    func everyReadingCommandReadsAnUnwritableLog(keepingLockFile: Bool) throws {
        let folder = TemporaryDirectory()
        let log = try readOnlyLog(in: folder, keepingLockFile: keepingLockFile)
        defer { chmod(log, 0o755) }
        let before = try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb"))
        for arguments in Self.readingCommands {
            let asOwner = try FlowLogProcess.run(arguments + ["--db", folder.child("source")])
            let result = try FlowLogProcess.run(arguments + ["--db", log], launcher: FlowLogProcess.unprivileged)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout == asOwner.stdout.replacingOccurrences(of: folder.child("source"), with: log), "\(arguments)")
        }
        let write = try FlowLogProcess.run(
            ["cart", "add", "--product", "p1", "--price", "1", "--stream", "demo-1", "--db", log], launcher: FlowLogProcess.unprivileged)
        #expect(write.status == 77, "\(write.stderr)")
        #expect(write.stderr.contains("Permission denied"), "\(write.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")) == before)
        #expect(FileManager.default.fileExists(atPath: log + "/lock.mdb") == keepingLockFile, "no lock file was made")
    }
}
