import FlowLogLMDB
import FlowLogSystem
import FlowLogTesting
import Foundation
import LMDB
import Testing

/// `flowlog compact`: an LMDB log rewritten without its free pages, answering exactly as before; a
/// log another process holds open is left alone (exit 75, naming the process); a copy a killed
/// compaction left is removed.
@Suite("compact")
struct CompactCLITests {
    /// A log with a few sessions and orders, and `--db` for it.
    private func makeLog(_ folder: TemporaryDirectory) throws -> [String] {
        let db = ["--db", folder.child("log")]
        for _ in 0..<3 { #expect(try FlowLogProcess.run(["demo"] + db).status == 0) }
        let lines = (0..<300).map { #"{"type":"cart.addProduct","stream":"w\#($0 % 7)","productId":"p\#($0 % 40)","unitPrice":100,"quantity":1}"# }
        #expect(try FlowLogProcess.run(["send"] + db, stdin: lines.joined(separator: "\n") + "\n").status == 0)
        return db
    }

    /// Writes 4 MB into the log's `meta` database and deletes it again: pages LMDB keeps free, and
    /// whose bytes stay in data.mdb until a compaction.
    private func addFreePages(_ path: String) throws {
        let environment = try Environment(path: path)
        let meta = try environment.write { try $0.openDatabase(named: "meta", create: false) }
        let key = Array("scratch".utf8)
        try environment.write { try $0.put(meta, key: key, value: [UInt8](repeating: 0x5A, count: 4 << 20)) }
        try environment.write { _ = try $0.delete(meta, key: key) }
    }

    /// What the log answers: every event, some states, streams, orders and verify.
    private func answers(_ db: [String]) throws -> [String] {
        let commands = [
            ["export"], ["streams", "--format", "json"], ["orders", "--format", "json"], ["state", "--stream", "demo-2", "--format", "json"],
            ["state", "--stream", "w3", "--format", "json"], ["verify"], ["replay", "--verify"],
        ]
        return try commands.map { arguments in
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout
        }
    }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    @Test func aCompactedLogIsSmallerAndAnswersAsBefore() throws {
        let folder = TemporaryDirectory()
        let db = try makeLog(folder)
        let data = folder.child("log/data.mdb")
        try addFreePages(folder.child("log"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: data)).contains(Data(repeating: 0x5A, count: 4096)), "the deleted bytes are still on disk")
        let before = try answers(db)
        let bytesBefore = size(data)
        let compacted = try FlowLogProcess.run(["compact", "--format", "json"] + db)
        #expect(compacted.status == 0, "\(compacted.stderr)")
        #expect(compacted.stdout == #"{"log":"\#(folder.child("log"))","bytesBefore":\#(bytesBefore),"bytesAfter":\#(size(data))}"# + "\n")
        #expect(size(data) < bytesBefore / 4, "\(bytesBefore) → \(size(data))")
        #expect(!(try Data(contentsOf: URL(fileURLWithPath: data)).contains(Data(repeating: 0x5A, count: 4096))), "the deleted bytes are gone")
        #expect(try answers(db) == before)
        let again = try FlowLogProcess.run(["compact"] + db)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("compacted \(folder.child("log")): "), "\(again.stdout)")
        #expect(again.stdout.hasSuffix(" bytes\n"))
        #expect(try FlowLogProcess.run(["cart", "add", "--product", "p1", "--price", "1", "--stream", "after"] + db).status == 0)
        #expect(try FlowLogProcess.run(["verify"] + db).status == 0)
    }

    @Test func aLogOpenInAnotherProcessIsLeftAloneNamingThatProcess() throws {
        let folder = TemporaryDirectory()
        let db = try makeLog(folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: folder.child("log/data.mdb")))
        do {
            // This test process holds the log open, as a `serve` would.
            let open = try LMDBEventLog(path: folder.child("log"), access: .readOnly)
            let refused = try FlowLogProcess.run(["compact"] + db)
            #expect(refused.status == 75, "\(refused.stderr)")
            #expect(refused.stderr.contains("is open in process \(getpid())"), "\(refused.stderr)")
            #expect(refused.stderr.contains("then run flowlog compact again"), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            withExtendedLifetime(open) {}
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.child("log/data.mdb"))) == before, "nothing was changed")
        // A follower in a process of its own is named too.
        let follower = Process()
        follower.executableURL = FlowLogProcess.executable
        follower.arguments = ["log", "--follow"] + db
        follower.standardOutput = FileHandle.nullDevice
        follower.standardError = FileHandle.nullDevice
        try follower.run()
        defer {
            kill(follower.processIdentifier, SIGKILL)
            follower.waitUntilExit()
        }
        var refused = try FlowLogProcess.run(["compact"] + db)
        for _ in 0..<200 where refused.status == 0 || !refused.stderr.contains("process \(follower.processIdentifier)") {
            usleep(25_000)
            refused = try FlowLogProcess.run(["compact"] + db)
        }
        #expect(refused.status == 75, "\(refused.stderr)")
        #expect(refused.stderr.contains("is open in process \(follower.processIdentifier)"), "\(refused.stderr)")
        kill(follower.processIdentifier, SIGKILL)
        follower.waitUntilExit()
        let done = try FlowLogProcess.run(["compact"] + db)
        #expect(done.status == 0, "once the follower is gone: \(done.stderr)")
    }

    @Test func aCopyAKilledCompactionLeftIsRemovedAndNeverRead() throws {
        let folder = TemporaryDirectory()
        let db = try makeLog(folder)
        let leftover = folder.child("log/" + LMDBEventLog.compactingName)
        try Data("half a copy".utf8).write(to: URL(fileURLWithPath: leftover))
        let before = try answers(db)
        let done = try FlowLogProcess.run(["compact"] + db)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(try answers(db) == before)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.child("log")).filter { !$0.hasPrefix("projector-") }
        #expect(files.sorted() == ["data.mdb", "flowlog.lock", "lock.mdb"])
    }

    /// SIGKILL at any moment of a compaction leaves the old data.mdb or the new one, never half:
    /// the log answers as before after each kill, and the next compaction removes what was left.
    @Test func aKilledCompactionLeavesTheLogAsItWasOrCompacted() throws {
        let folder = TemporaryDirectory()
        let db = try makeLog(folder)
        // 24 MB of live data (kept) and 4 MB of free pages: a copy that takes a while to write.
        let environment = try Environment(path: folder.child("log"))
        let meta = try environment.write { try $0.openDatabase(named: "meta", create: false) }
        try environment.write { try $0.put(meta, key: Array("ballast".utf8), value: [UInt8](repeating: 0x11, count: 24 << 20)) }
        _ = consume environment
        try addFreePages(folder.child("log"))
        let before = try answers(db)
        var killedMidway = 0
        // Delays from the start of the process: early ones land before or during the copy on an idle
        // machine, late ones on a loaded machine, where a process takes longer to start.
        for delay in [0, 10, 20, 35, 50, 80, 120, 200] {
            let compact = Process()
            compact.executableURL = FlowLogProcess.executable
            compact.arguments = ["compact"] + db
            compact.standardOutput = FileHandle.nullDevice
            compact.standardError = FileHandle.nullDevice
            try compact.run()
            usleep(useconds_t(delay * 1_000))
            kill(compact.processIdentifier, SIGKILL)
            compact.waitUntilExit()
            if FileManager.default.fileExists(atPath: folder.child("log/" + LMDBEventLog.compactingName)) { killedMidway += 1 }
            #expect(try answers(db) == before, "after a kill at \(delay) ms")
        }
        #expect(killedMidway > 0, "at least one kill came while the copy was being written")
        let done = try FlowLogProcess.run(["compact"] + db)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.child("log/" + LMDBEventLog.compactingName)))
        #expect(try answers(db) == before)
    }

    @Test func compactRefusesWhatIsNotALog() throws {
        let folder = TemporaryDirectory()
        let missing = try FlowLogProcess.run(["compact", "--db", folder.child("nolog")])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.child("nolog")), "compact creates nothing")
        try "x".write(toFile: folder.child("file"), atomically: true, encoding: .utf8)
        let file = try FlowLogProcess.run(["compact", "--db", folder.child("file")])
        #expect(file.status == 65, "\(file.stderr)")
    }
}
