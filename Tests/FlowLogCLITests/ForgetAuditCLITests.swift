import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// The erasure audit trail: an event in the system stream flowlog:erasures for each forgotten
/// stream, without its id, hidden unless asked for; a keyed pseudonym recognises a second request.
@Suite("Forgetting a stream: the audit trail", .serialized)
struct ForgetAuditCLITests {
    static func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        try ForgetCLITests.run(arguments, stdin: stdin, expecting: status)
    }

    @Test func eachErasureIsRecordedWithoutTheStreamAndASecondRequestIsRecognised() throws {
        let scratch = TemporaryDirectory()
        let db = try ForgetCLITests.twoSessions(in: scratch)
        let key = scratch.child("key")
        try Data((0..<32).map { UInt8($0 * 7 % 256) }).write(to: URL(fileURLWithPath: key))
        _ = try Self.run(["forget", "--stream", "alice", "--reason", "request 2026-118", "--key-file", key, "--db", db])

        let trail = try Self.run(["log", "--stream", "flowlog:erasures", "--format", "json", "--db", db]).stdoutLines
        #expect(trail.count == 1)
        let audit = try JSONParser.parse(trail[0])
        #expect(audit["type"] == .string("log.streamForgotten") && audit["actor"] == .string("system"))
        #expect(audit["data"]?["events"] == .integer(3) && audit["data"]?["reason"] == .string("request 2026-118"))
        guard case .string(let pseudonym)? = audit["data"]?["pseudonym"] else {
            Issue.record("no pseudonym: \(trail[0])")
            return
        }
        #expect(pseudonym.count == 64 && !trail[0].contains("alice"))

        // Recognised by its pseudonym with the key; unknown without it, like any stream that never existed.
        let again = try Self.run(["forget", "--stream", "alice", "--key-file", key, "--format", "json", "--db", db])
        #expect(again.stdout.contains(#""alreadyForgotten":true"#), "\(again.stdout)")
        _ = try Self.run(["forget", "--stream", "alice", "--db", db], expecting: 66)
        let otherKey = scratch.child("other-key")
        try Data(repeating: 1, count: 32).write(to: URL(fileURLWithPath: otherKey))
        _ = try Self.run(["forget", "--stream", "alice", "--key-file", otherKey, "--db", db], expecting: 66)
        #expect(
            try Self.run(["log", "--stream", "flowlog:erasures", "--db", db]).stdoutLines.count == 2,
            "one header, one event: nothing more was recorded")
    }

    @Test func theTrailIsHiddenUnlessAskedFor() throws {
        let scratch = TemporaryDirectory()
        let db = try ForgetCLITests.twoSessions(in: scratch)
        _ = try Self.run(["forget", "--stream", "alice", "--db", db])
        #expect(!(try Self.run(["streams", "--db", db]).stdout.contains("flowlog:erasures")))
        #expect(try Self.run(["streams", "--system", "--db", db]).stdout.contains("flowlog:erasures"))
        #expect(!(try Self.run(["export", "--db", db]).stdout.contains("log.streamForgotten")))
        #expect(!(try Self.run(["export", "--format", "csv", "--db", db]).stdout.contains("log.streamForgotten")))
        #expect(try Self.run(["export", "--system", "--db", db]).stdout.contains("log.streamForgotten"))
        _ = try Self.run(["projections", "run", "--tracker-dir", scratch.child("trackers"), "--db", db])
        for file in ["segment.ndjson", "ga4.ndjson"] {
            #expect(!(try String(contentsOfFile: scratch.child("trackers/" + file), encoding: .utf8)).contains("flowlog:"), "\(file)")
        }
        let verify = try JSONParser.parse(try Self.run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true))
    }

    @Test func badInputIsRefusedBeforeAnythingChanges() throws {
        let scratch = TemporaryDirectory()
        let db = try ForgetCLITests.twoSessions(in: scratch)
        let named = try Self.run(["forget", "--stream", "alice", "--reason", "alice asked", "--db", db], expecting: 64)
        #expect(named.stderr.contains("must not hold"), "\(named.stderr)")
        let short = scratch.child("short")
        try Data(repeating: 1, count: 8).write(to: URL(fileURLWithPath: short))
        _ = try Self.run(["forget", "--stream", "alice", "--key-file", short, "--db", db], expecting: 64)
        _ = try Self.run(["forget", "--stream", "alice", "--key-file", scratch.child("missing"), "--db", db], expecting: 66)
        _ = try Self.run(["forget", "--stream", "flowlog:erasures", "--db", db], expecting: 64)
        let reserved = try Self.run(["send", "-", "--db", db], stdin: #"{"type":"cart.checkout","stream":"flowlog:erasures"}"# + "\n", expecting: 1)
        #expect(reserved.stdout.contains("invalidIdentifier"))
        _ = try Self.run(["state", "--stream", "alice", "--db", db])
        #expect(!(try Self.run(["streams", "--system", "--db", db]).stdout.contains("flowlog:erasures")))
    }
}
