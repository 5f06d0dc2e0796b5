import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// One projector, one runner: a second process for a projector exits at once (75) naming the first,
/// the lock dies with its holder, and a rebuild does not send a collector what it acknowledged.
@Suite("projector locks from the command line")
struct ProjectorLockCLITests {
    private func send(_ count: Int, from start: Int = 0, _ db: [String]) throws {
        let lines = (start..<start + count).map {
            #"{"type":"cart.addProduct","stream":"s\#($0 % 7)","productId":"p\#($0)","unitPrice":100,"quantity":1}"#
        }
        let sent = try FlowLogProcess.run(["send"] + db, stdin: lines.joined(separator: "\n") + "\n")
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    /// Waits until every projector has handled the whole log.
    private func waitUntilCurrent(_ db: [String]) throws -> Bool {
        for _ in 0..<400 {
            let status = try FlowLogProcess.run(["projections", "status", "--format", "json"] + db)
            if status.stdoutLines.count == 3, status.stdoutLines.allSatisfy({ $0.contains(#""lag":0,"#) }) { return true }
            usleep(50_000)
        }
        return false
    }

    private func messageIds(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            guard case .string(let id)? = try JSONParser.parse(String(line))["messageId"] else { return "" }
            return id
        }
    }

    @Test func aSecondRunnerExits75NamingTheFirstAndTheLockDiesWithItsHolder() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        try send(300, db)
        let follower = Process()
        follower.executableURL = FlowLogProcess.executable
        follower.arguments = ["projections", "run", "--follow"] + db
        follower.standardOutput = FileHandle.nullDevice
        follower.standardError = FileHandle.nullDevice
        try follower.run()
        defer { if follower.isRunning { kill(follower.processIdentifier, SIGKILL) } }
        #expect(try waitUntilCurrent(db))

        for arguments in [["projections", "run"], ["projections", "rebuild", "tracker.segment"], ["projections", "rebuild", "storage"]] {
            let started = Date()
            let second = try FlowLogProcess.run(arguments + db)
            #expect(second.status == 75, "\(arguments): \(second.stderr)")
            #expect(second.stderr.contains("is being run by process \(follower.processIdentifier)"), "\(second.stderr)")
            #expect(Date().timeIntervalSince(started) < 5, "it does not wait for the lock")
        }
        // Commands that only read a projector's results leave it to its runner.
        let orders = try FlowLogProcess.run(["orders"] + db)
        #expect(orders.status == 0, "\(orders.stderr)")
        let demo = try FlowLogProcess.run(["demo"] + db)
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("being run by process \(follower.processIdentifier)"))

        try send(200, from: 300, db)
        #expect(try waitUntilCurrent(db))
        kill(follower.processIdentifier, SIGKILL)
        follower.waitUntilExit()
        let after = try FlowLogProcess.run(["projections", "run"] + db)
        #expect(after.status == 0, "no stale lock after SIGKILL: \(after.stderr)")

        let ids = try messageIds(folder.child("log-tracker/segment.ndjson"))
        #expect(ids.count == 517 + 2, "every event's messages once (the demo's launch and sign-up add a screen call each)")
        #expect(Set(ids).count == ids.count, "no message was delivered twice")
    }

    @Test func aRebuildOfATrackerResendsNothingAcknowledgedUnlessAsked() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        #expect(try FlowLogProcess.run(["demo"] + db).status == 0)
        let segment = folder.child("log-tracker/segment.ndjson")
        let delivered = try messageIds(segment)
        #expect(delivered.count == 19)

        let rebuilt = try FlowLogProcess.run(["projections", "rebuild", "tracker.segment"] + db)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stdout == "tracker.segment: rebuilt from 17 events\n")
        #expect(rebuilt.stderr.contains("--resend"))
        #expect(try messageIds(segment) == delivered)

        try send(3, db)
        #expect(try FlowLogProcess.run(["projections", "rebuild", "tracker.segment"] + db).status == 0)
        #expect(try messageIds(segment).count == 22, "events after the acknowledged ones are sent")

        let resent = try FlowLogProcess.run(["projections", "rebuild", "tracker.segment", "--resend"] + db)
        #expect(resent.status == 0, "\(resent.stderr)")
        #expect(try messageIds(segment).count == 44)
        #expect(try FlowLogProcess.run(["projections", "rebuild", "storage", "--resend"] + db).status == 64)
    }
}
