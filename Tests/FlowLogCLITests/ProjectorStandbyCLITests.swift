import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `projections run --follow --standby` (issue 44, item 1, for a holder that ends): a second runner
/// waits for the projectors instead of exiting 75, and takes over within a moment of the first one's
/// death, on LMDB and on PostgreSQL, every event projected once.
@Suite("standby runners", .serialized)
struct ProjectorStandbyCLITests {
    private static func send(_ count: Int, from start: Int, _ db: String) throws {
        let lines = (start..<start + count).map {
            #"{"type":"cart.addProduct","stream":"s\#($0 % 7)","productId":"p\#($0)","unitPrice":100,"quantity":1}"#
        }
        let sent = try FlowLogProcess.run(["send", "--db", db], stdin: lines.joined(separator: "\n") + "\n")
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    /// Waits until every projector's lag is 0 and its checkpoint `head`.
    private static func waitUntilProjected(through head: Int, _ db: String) throws -> Bool {
        for _ in 0..<400 {
            let status = try FlowLogProcess.run(["projections", "status", "--format", "json", "--db", db])
            if status.stdoutLines.count == 3, status.stdoutLines.allSatisfy({ $0.contains(#""checkpoint":\#(head),"#) }) { return true }
            usleep(50_000)
        }
        return false
    }

    private static func messageIds(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            guard case .string(let id)? = try JSONParser.parse(String(line))["messageId"] else { return "" }
            return id
        }
    }

    @Test(arguments: ["lmdb", "postgres"])
    func aStandbyTakesOverWhenTheHolderIsKilledAndProjectsEveryEventOnce(backend: String) throws {
        let folder = TemporaryDirectory()
        let db = backend == "lmdb" ? folder.child("log") : PostgresServer.shared.url()
        let trackers = ["--tracker-dir", folder.child("trackers")]
        try Self.send(40, from: 0, db)
        let holder = try BackgroundFlowLog(["projections", "run", "--follow", "--db", db] + trackers, in: folder, name: "holder")
        #expect(try Self.waitUntilProjected(through: 40, db))
        let standby = try BackgroundFlowLog(["projections", "run", "--follow", "--standby", "--db", db] + trackers, in: folder, name: "standby")
        #expect(standby.waitFor("standing by"), "\(standby.output)")
        #expect(standby.output.contains("process \(holder.process.processIdentifier)"))
        // The holder still runs the projectors: the standby projects nothing meanwhile.
        try Self.send(10, from: 40, db)
        #expect(try Self.waitUntilProjected(through: 50, db))
        #expect(!standby.output.contains("took over"))

        kill(holder.process.processIdentifier, SIGKILL)
        holder.process.waitUntilExit()
        let killed = Date()
        #expect(standby.waitFor("took over"), "\(standby.output)")
        #expect(Date().timeIntervalSince(killed) < 5, "taken over within moments of the holder's death")
        try Self.send(10, from: 50, db)
        #expect(try Self.waitUntilProjected(through: 60, db))
        let ids = try Self.messageIds(folder.child("trackers/segment.ndjson"))
        #expect(ids.count == 60 && Set(ids).count == 60, "each event's message once, across the two runners")
        kill(standby.process.processIdentifier, SIGTERM)
        standby.process.waitUntilExit()
        #expect(standby.process.terminationStatus == 0)
    }

    /// PostgreSQL's leases expire (`--lease-timeout`): a holder paused with SIGSTOP is replaced within
    /// the timeout and a poll, and, resumed, stops with exit 75 having moved nothing.
    @Test func aPausedHolderIsReplacedAndResumedStopsHavingMovedNothing() throws {
        let folder = TemporaryDirectory()
        let server = PostgresServer.shared
        let db = server.url(schema: server.freshName("lease"))
        let trackers = ["--tracker-dir", folder.child("trackers")]
        let lease = ["--lease-timeout", "2"]
        try Self.send(40, from: 0, db)
        let holder = try BackgroundFlowLog(["projections", "run", "--follow", "--db", db] + lease + trackers, in: folder, name: "holder")
        #expect(try Self.waitUntilProjected(through: 40, db))
        let standby = try BackgroundFlowLog(
            ["projections", "run", "--follow", "--standby", "--db", db] + lease + trackers, in: folder, name: "standby")
        #expect(standby.waitFor("standing by"), "\(standby.output)")

        kill(holder.process.processIdentifier, SIGSTOP)
        let paused = Date()
        try Self.send(10, from: 40, db)
        #expect(standby.waitFor("took over"), "\(standby.output)")
        let takeover = Date().timeIntervalSince(paused)
        #expect(takeover >= 1.5 && takeover < 6, "taken over once the lease expired (2 s), not before: \(takeover) s")
        #expect(try Self.waitUntilProjected(through: 50, db))

        kill(holder.process.processIdentifier, SIGCONT)
        let resumed = Date()
        while holder.process.isRunning, Date().timeIntervalSince(resumed) < 10 { usleep(20_000) }
        #expect(!holder.process.isRunning && holder.process.terminationStatus == 75)
        let said = holder.errors
        #expect(said.contains("lost its lease"), "\(said)")
        try Self.send(10, from: 50, db)
        #expect(try Self.waitUntilProjected(through: 60, db))
        let ids = try Self.messageIds(folder.child("trackers/segment.ndjson"))
        #expect(Set(ids).count == 60 && ids.count == 60, "each event's message once: the resumed holder delivered nothing")
        kill(standby.process.processIdentifier, SIGTERM)
        standby.process.waitUntilExit()
        #expect(standby.process.terminationStatus == 0)
    }

    @Test func ofTwoStandbysOneTakesOverAndTheOtherWaitsForIt() throws {
        let folder = TemporaryDirectory()
        let db = folder.child("log")
        let trackers = ["--tracker-dir", folder.child("trackers")]
        try Self.send(20, from: 0, db)
        let holder = try BackgroundFlowLog(["projections", "run", "--follow", "--db", db] + trackers, in: folder, name: "holder")
        #expect(try Self.waitUntilProjected(through: 20, db))
        let standbys = try ["first", "second"].map {
            try BackgroundFlowLog(["projections", "run", "--follow", "--standby", "--db", db] + trackers, in: folder, name: $0)
        }
        #expect(standbys.allSatisfy { $0.waitFor("standing by") })
        kill(holder.process.processIdentifier, SIGKILL)
        holder.process.waitUntilExit()
        let deadline = Date().addingTimeInterval(20)
        while !standbys.contains(where: { $0.output.contains("took over") }), Date() < deadline { usleep(20_000) }
        let winners = standbys.filter { $0.output.contains("took over") }
        #expect(winners.count == 1, "one standby holds every projector, none half of them")
        try Self.send(5, from: 20, db)
        #expect(try Self.waitUntilProjected(through: 25, db))
        guard let winner = winners.first, let other = standbys.first(where: { $0 !== winner }) else { return }
        kill(winner.process.processIdentifier, SIGKILL)
        winner.process.waitUntilExit()
        #expect(other.waitFor("took over"), "the other one takes over in turn: \(other.output)")
        try Self.send(5, from: 25, db)
        #expect(try Self.waitUntilProjected(through: 30, db))
        let ids = try Self.messageIds(folder.child("trackers/segment.ndjson"))
        #expect(ids.count == 30 && Set(ids).count == 30)
    }

    @Test func aStandbyStoppedWhileWaitingExitsZeroHavingRunNothing() throws {
        let folder = TemporaryDirectory()
        let db = folder.child("log")
        try Self.send(5, from: 0, db)
        let holder = try BackgroundFlowLog(["projections", "run", "--follow", "--db", db], in: folder, name: "holder")
        #expect(try Self.waitUntilProjected(through: 5, db))
        let standby = try BackgroundFlowLog(["projections", "run", "--follow", "--standby", "--db", db], in: folder, name: "standby")
        #expect(standby.waitFor("standing by"))
        kill(standby.process.processIdentifier, SIGTERM)
        standby.process.waitUntilExit()
        #expect(standby.process.terminationStatus == 0 && !standby.output.contains("took over"))
        #expect(holder.process.isRunning)
        let once = try FlowLogProcess.run(["projections", "run", "--standby", "--db", db])
        #expect(once.status == 64 && once.stderr.contains("--follow"), "\(once.stderr)")
    }
}
