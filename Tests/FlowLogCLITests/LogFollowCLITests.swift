import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `flowlog log`: the export's selection options, and `--follow`, which prints new events as they
/// commit, each batch flushed, until SIGINT or SIGTERM ends it with exit 0.
@Suite("log selection and --follow")
struct LogFollowCLITests {
    private func demoLog(_ folder: TemporaryDirectory) throws -> [String] {
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo"] + db)
        _ = try FlowLogProcess.run(["demo"] + db)
        return db
    }

    @Test func logTakesTheExportsSelectionOptions() throws {
        let folder = TemporaryDirectory()
        let db = try demoLog(folder)
        let orders = try FlowLogProcess.run(
            ["log", "--stream", "demo-1", "--stream", "demo-2", "--type", "cart.orderPlaced", "--format", "json"] + db)
        #expect(orders.status == 0, "\(orders.stderr)")
        #expect(orders.stdoutLines.map { try? JSONParser.parse($0)["position"] } == [.integer(15), .integer(32)])
        let range = try FlowLogProcess.run(["log", "--from-position", "5", "--to-position", "7", "--format", "json"] + db)
        #expect(range.stdoutLines.count == 3)
        let one = try FlowLogProcess.run(["log", "--stream", "demo-2", "--from", "30", "--limit", "2", "--format", "json"] + db)
        #expect(one.stdoutLines.map { try? JSONParser.parse($0)["position"] } == [.integer(30), .integer(31)])
        let all = try FlowLogProcess.run(["log", "--format", "json"] + db).stdoutLines
        guard case .string(let tenth)? = try JSONParser.parse(all[9])["timestamp"],
            case .string(let twelfth)? = try JSONParser.parse(all[11])["timestamp"]
        else {
            Issue.record("times")
            return
        }
        let window = try FlowLogProcess.run(["log", "--since", tenth, "--until", twelfth, "--format", "json"] + db)
        #expect(window.stdoutLines.first.map { $0.contains(#""position":10,"#) } == true, "\(window.stdout)")
        let table = try FlowLogProcess.run(["log", "--type", "app.launched"] + db)
        #expect(table.stdoutLines.count == 3)
        #expect(table.stdoutLines[0].hasPrefix("POSITION  STREAM"))
        for (arguments, message) in [
            (["log", "--from-position", "40"], "positions 1 through 34"), (["log", "--to-position", "99"], "positions 1 through 34"),
            (["log", "--from", "3", "--from-position", "3"], "--from and --from-position"),
            (["log", "--type", "cart.nothing"], "is not an event type"),
        ] {
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// Starts `log --follow` with its output in a file; returns the process and the file.
    private func follow(_ arguments: [String], in folder: TemporaryDirectory) throws -> (Process, String) {
        let out = folder.child("follow-\(UInt32.random(in: 0...UInt32.max)).out")
        #expect(FileManager.default.createFile(atPath: out, contents: nil))
        let process = Process()
        process.executableURL = FlowLogProcess.executable
        process.arguments = ["log", "--follow"] + arguments
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, out)
    }

    private func waitForLines(_ path: String, count: Int) -> [String] {
        for _ in 0..<200 {
            let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines.count >= count { return lines }
            usleep(25_000)
        }
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func send(_ count: Int, stream: String, _ db: [String]) throws {
        let lines = (0..<count).map { _ in #"{"type":"cart.addProduct","stream":"\#(stream)","productId":"p","unitPrice":100,"quantity":1}"# }
        let sent = try FlowLogProcess.run(["send"] + db, stdin: lines.joined(separator: "\n") + "\n")
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func followPrintsEachCommittedBatchAndASignalEndsItWithExitZero(signal: Int32) throws {
        let folder = TemporaryDirectory()
        let db = try demoLog(folder)
        let (process, out) = try follow(["--format", "json", "--from", "33"] + db, in: folder)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(waitForLines(out, count: 2).count == 2, "what is there first")
        try send(3, stream: "new", db)
        #expect(waitForLines(out, count: 5).count == 5, "a batch is flushed as it commits, with the output in a file")
        try send(2, stream: "other", db)
        let lines = waitForLines(out, count: 7)
        #expect(lines.map { try? JSONParser.parse($0)["position"] } == (33...39).map { JSONValue.integer($0) })
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test func followSelectsAStreamToComeAndEndsAtItsLimitOrLastPosition() throws {
        let folder = TemporaryDirectory()
        let db = try demoLog(folder)
        let (process, out) = try follow(["--stream", "later", "--limit", "3"] + db, in: folder)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(waitForLines(out, count: 1).count == 1, "the header; the stream may not exist yet")
        try send(2, stream: "elsewhere", db)
        try send(4, stream: "later", db)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "--limit 3 ends the follow")
        let lines = waitForLines(out, count: 4)
        #expect(lines.count == 4, "\(lines)")
        #expect(lines[0].hasPrefix("POSITION  STREAM"))
        #expect(lines.dropFirst().allSatisfy { $0.contains(" later ") }, "\(lines)")
        let (bounded, boundedOut) = try follow(["--to-position", "40", "--format", "json"] + db, in: folder)
        defer { if bounded.isRunning { kill(bounded.processIdentifier, SIGKILL) } }
        try send(5, stream: "x", db)
        bounded.waitUntilExit()
        #expect(bounded.terminationStatus == 0, "--to-position ends the follow once it is reached")
        #expect(waitForLines(boundedOut, count: 40).count == 40)
    }
}
