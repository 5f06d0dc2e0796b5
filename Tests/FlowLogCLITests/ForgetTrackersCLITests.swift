import FlowLogTesting
import Foundation
import Testing

/// What `forget` does outside the log: the trackers' files lose the stream's lines, nothing of it is
/// sent afterwards, and a running tracker makes it refuse before changing anything.
@Suite("Forgetting a stream: trackers and conversations", .serialized)
struct ForgetTrackersCLITests {
    static func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        try ForgetCLITests.run(arguments, stdin: stdin, expecting: status)
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func theTrackersFilesLoseTheStreamsLinesAndTheRestStays() throws {
        let scratch = TemporaryDirectory()
        let db = try ForgetCLITests.twoSessions(in: scratch)
        let trackers = scratch.child("trackers")
        _ = try Self.run(["projections", "run", "--tracker-dir", trackers, "--db", db])
        // A dead letter of alice's, as a refusing collector would have left it.
        let deadLetters = trackers + "/segment.dead-letters.ndjson"
        try
            (#"{"tracker":"segment","id":"x","position":20,"client":"alice","status":400,"message":{}}"# + "\n"
            + #"{"tracker":"segment","id":"y","position":1,"client":"bob","status":400,"message":{}}"# + "\n")
            .write(toFile: deadLetters, atomically: true, encoding: .utf8)
        let before = try ["segment.ndjson", "ga4.ndjson"].map { try Self.lines(trackers + "/" + $0) }
        let bobsBefore = before.map { $0.filter { !$0.contains(#""alice""#) } }
        #expect(before.allSatisfy { $0.contains { $0.contains(#""alice""#) } }, "alice's messages were written")

        let forgotten = try Self.run(["forget", "--stream", "alice", "--tracker-dir", trackers, "--db", db])
        #expect(forgotten.stdout.contains("segment.ndjson"), "\(forgotten.stdout)")
        let after = try ["segment.ndjson", "ga4.ndjson"].map { try Self.lines(trackers + "/" + $0) }
        #expect(after == bobsBefore)
        #expect(try Self.lines(deadLetters).count == 1 && !(try Self.lines(deadLetters)[0].contains("alice")))
        // Nothing of alice's is sent again: a rebuild of the trackers replays only bob's events.
        _ = try Self.run(["projections", "rebuild", "tracker.segment", "--tracker-dir", trackers, "--db", db])
        _ = try Self.run(["projections", "run", "--tracker-dir", trackers, "--db", db])
        #expect(!(try String(contentsOfFile: trackers + "/segment.ndjson", encoding: .utf8)).contains("alice"))
    }

    @Test func callsNotYetDeliveredAreNeverSent() throws {
        let scratch = TemporaryDirectory()
        let db = try ForgetCLITests.twoSessions(in: scratch)
        let trackers = scratch.child("trackers")
        // The trackers never ran: every call of alice's is still to be made.
        _ = try Self.run(["forget", "--stream", "alice", "--tracker-dir", trackers, "--db", db])
        _ = try Self.run(["projections", "run", "--tracker-dir", trackers, "--db", db])
        for file in ["segment.ndjson", "ga4.ndjson"] {
            let text = try String(contentsOfFile: trackers + "/" + file, encoding: .utf8)
            #expect(text.contains(#""bob""#) && !text.contains("alice"), "\(file)")
        }
    }

    @Test func aRunningTrackerMakesForgetRefuseBeforeChangingAnything() throws {
        let scratch = TemporaryDirectory()
        let db = try ForgetCLITests.twoSessions(in: scratch)
        let started = try FlowLogProcess.start(["projections", "run", "--follow", "--tracker-dir", scratch.child("trackers"), "--db", db])
        let follower = started.process
        defer { started.kill() }
        // Once the runner has caught up, it holds the trackers' leases.
        var current = false
        for _ in 0..<400 where !current {
            let status = try FlowLogProcess.run(["projections", "status", "--format", "json", "--db", db])
            current = status.stdoutLines.count == 3 && status.stdoutLines.allSatisfy { $0.contains(#""lag":0,"#) }
            if !current { usleep(50_000) }
        }
        #expect(current)
        let refused = try Self.run(["forget", "--stream", "alice", "--db", db], expecting: 75)
        #expect(refused.stderr.contains("process \(follower.processIdentifier)"), "\(refused.stderr)")
        started.kill()
        // Nothing was forgotten; once the runner is gone, forget goes through.
        _ = try Self.run(["state", "--stream", "alice", "--db", db])
        _ = try Self.run(["forget", "--stream", "alice", "--db", db])
    }

    @Test func aConversationIsForgottenAcrossItsStreams() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        let commands = """
            {"type":"cart.addProduct","stream":"web-1","productId":"p1","unitPrice":100,"quantity":1,"correlationId":"conv-9"}
            {"type":"cart.addProduct","stream":"app-1","productId":"p1","unitPrice":100,"quantity":1,"correlationId":"conv-9"}
            {"type":"cart.addProduct","stream":"other","productId":"p1","unitPrice":100,"quantity":1,"correlationId":"conv-1"}
            """
        _ = try Self.run(["send", "-", "--db", db], stdin: commands + "\n")
        let forgotten = try Self.run(["forget", "--correlation-id", "conv-9", "--format", "json", "--db", db])
        #expect(forgotten.stdoutLines.count == 2)
        #expect(forgotten.stdout.contains(#""stream":"web-1""#) && forgotten.stdout.contains(#""stream":"app-1""#))
        let streams = try Self.run(["streams", "--db", db]).stdout
        #expect(streams.contains("other") && !streams.contains("web-1") && !streams.contains("app-1"))
        let again = try Self.run(["forget", "--correlation-id", "conv-9", "--db", db], expecting: 66)
        #expect(again.stderr.contains("No event"), "\(again.stderr)")
        _ = try Self.run(["forget", "--db", db], expecting: 64)
    }
}
