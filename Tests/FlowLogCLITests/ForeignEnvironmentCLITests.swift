import FlowLogTesting
import Foundation
import LMDB
import Testing

/// An LMDB environment that some other program keeps is never written by FlowLog: every command,
/// writing or reading, refuses it with exit 65 and leaves its bytes as they were.
@Suite("foreign LMDB environments from the command line")
struct ForeignEnvironmentCLITests {
    /// Every command that opens a log, writing or reading (CutShortLogCLITests runs them too).
    static let commands: [(arguments: [String], stdin: String?)] = [
        (["send"], #"{"type":"app.launched","hasOnboarded":false}"# + "\n"),
        (["cart", "add", "--product", "p1", "--price", "1.00"], nil),
        (["system", "app-launched"], nil),
        (["demo"], nil),
        (["import", FlowLogProcess.fixtures.appendingPathComponent("bugs/coupon-over-100.ndjson").path], nil),
        (["snapshots", "--interval", "5"], nil),
        (["projections", "run"], nil),
        (["projections", "rebuild", "tracker.segment"], nil),
        (["orders"], nil),
        (["snapshots"], nil), (["state"], nil), (["log"], nil), (["export"], nil), (["verify"], nil), (["projections", "status"], nil),
    ]

    /// Another program's environment: a named database of its own, or keys straight in the main database.
    private func foreignEnvironment(at path: String, named: Bool) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let environment = try Environment(path: path)
        try environment.write { txn in
            let database = named ? try txn.openDatabase(named: "users", create: true) : try txn.openDatabase(named: nil)
            try txn.put(database, key: Array("alice".utf8), value: Array("admin".utf8))
        }
    }

    @Test(arguments: [true, false])
    func everyCommandRefusesAForeignEnvironmentAndLeavesItsBytesAlone(namedDatabase: Bool) throws {
        let folder = TemporaryDirectory()
        let path = folder.child("theirs")
        try foreignEnvironment(at: path, named: namedDatabase)
        let before = FileManager.default.contents(atPath: path + "/data.mdb")
        for command in Self.commands {
            let result = try FlowLogProcess.run(command.arguments + ["--db", path], stdin: command.stdin)
            #expect(result.status == 65, "\(command.arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("is not a FlowLog log"), "\(command.arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(command.arguments)")
        }
        #expect(FileManager.default.contents(atPath: path + "/data.mdb") == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == ["data.mdb", "lock.mdb"])
        #expect(!FileManager.default.fileExists(atPath: path + "-tracker"))
    }

    @Test func anEmptyEnvironmentBecomesALog() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("empty")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        _ = try Environment(path: path)
        let result = try FlowLogProcess.run(["system", "app-launched", "--db", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FlowLogProcess.run(["verify", "--db", path]).status == 0)
    }
}
