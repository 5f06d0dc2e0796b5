import FlowLogTesting
import Foundation
import Testing

/// A log whose `data.mdb` is shorter than its last commit (a copy that did not finish) is refused
/// by every command with exit 65 and a message that says so. LMDB would read the missing pages
/// through its map, and the process would die of `SIGBUS` (exit 135) without a word.
@Suite("a cut-short log from the command line")
struct CutShortLogCLITests {
    @Test func everyCommandRefusesALogCutShortAndLeavesItsBytesAlone() throws {
        let folder = TemporaryDirectory()
        let whole = folder.child("whole")
        for stream in ["a", "b", "c", "d"] {
            #expect(try FlowLogProcess.run(["demo", "--db", whole, "--stream", stream]).status == 0)
        }
        let bytes = try #require(FileManager.default.contents(atPath: whole + "/data.mdb"))
        let path = folder.child("cut")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let cut = bytes.prefix(bytes.count / 2)
        #expect(FileManager.default.createFile(atPath: path + "/data.mdb", contents: cut))
        for command in ForeignEnvironmentCLITests.commands {
            let result = try FlowLogProcess.run(command.arguments + ["--db", path], stdin: command.stdin)
            #expect(result.status == 65, "\(command.arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("data.mdb holds \(cut.count) bytes, but its last commit uses"), "\(command.arguments): \(result.stderr)")
            #expect(result.stderr.contains("restore it from a backup"), "\(command.arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(command.arguments)")
        }
        #expect(FileManager.default.contents(atPath: path + "/data.mdb") == cut)
    }
}
