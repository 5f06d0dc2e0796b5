import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `flowlog forget`: a forgotten stream answers as one that never existed, every other stream
/// answers as before, and the log still verifies and round-trips.
@Suite("Forgetting a stream", .serialized)
struct ForgetCLITests {
    static func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        let result = try FlowLogProcess.run(arguments, stdin: stdin)
        #expect(result.status == status, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        return result
    }

    /// Two sessions, one of them ("alice") with a product, a correlation id and a command id no other
    /// stream uses; and an order of hers, placed and paid.
    static func twoSessions(in directory: TemporaryDirectory) throws -> String {
        let db = directory.child("log")
        try twoSessions(db: db)
        return db
    }

    /// The same two sessions in the log `db` (any backend), the first one named `alice`; the demo's
    /// tracker files go into `demoTrackers` when given (else beside the log).
    static func twoSessions(db: String, alice: String = "alice", demoTrackers: String? = nil) throws {
        _ = try run(["demo", "--db", db, "--stream", "bob"] + (demoTrackers.map { ["--tracker-dir", $0] } ?? []))
        let commands = """
            {"type":"cart.addProduct","stream":"\(alice)","productId":"p-quill","name":"Quill of Alice","unitPrice":1250,"quantity":2,"correlationId":"corr-alice-7","id":"cmd-alice-1"}
            {"type":"cart.checkout","stream":"\(alice)","correlationId":"corr-alice-7"}
            {"type":"payment.succeeded","stream":"\(alice)","orderId":"o-alice","correlationId":"corr-alice-7"}
            {"type":"cart.addProduct","stream":"bob","productId":"p2","unitPrice":300,"quantity":1}
            """
        _ = try run(["send", "-", "--db", db], stdin: commands + "\n")
    }

    /// What the other session ("bob") and the whole export answer before a forget.
    struct Untouched {
        let export: String
        let state: String
        let lines: Int

        init(_ db: String) throws {
            export = try ForgetCLITests.run(["export", "--stream", "bob", "--db", db]).stdout
            state = try ForgetCLITests.run(["state", "--stream", "bob", "--format", "json", "--db", db]).stdout
            lines = try ForgetCLITests.run(["export", "--db", db]).stdoutLines.count
        }
    }

    /// After `alice` (`twoSessions`' first session, 3 events) was forgotten: she answers as a
    /// stream that never existed, a second forget finds nothing, everyone else is as before,
    /// positions stay contiguous, none of her strings is exported, and the chain verifies.
    static func expectForgotten(_ alice: String, _ db: String, _ before: Untouched) throws {
        for reader in [["state", "--stream", alice], ["replay", "--stream", alice], ["log", "--stream", alice]] {
            let refused = try run(reader + ["--db", db], expecting: 66)
            #expect(refused.stderr.contains("There is no stream \(alice)"), "\(reader): \(refused.stderr)")
        }
        #expect(!(try run(["streams", "--db", db]).stdout.contains("alice")))
        let again = try run(["forget", "--stream", alice, "--db", db], expecting: 66)
        #expect(again.stderr.contains("There is no stream \(alice)"))

        #expect(try run(["export", "--stream", "bob", "--db", db]).stdout == before.export)
        #expect(try run(["state", "--stream", "bob", "--format", "json", "--db", db]).stdout == before.state)
        let export = try run(["export", "--db", db]).stdout
        #expect(export.split(separator: "\n").count == before.lines)
        for forbidden in ["alice", "Quill of Alice", "corr-alice-7", "cmd-alice-1", "o-alice"] {
            #expect(!export.contains(forbidden), "\(forbidden) in the export")
        }
        let verify = try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(3), "\(verify)")
    }

    @Test func aForgottenStreamAnswersAsOneThatNeverExisted() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.twoSessions(in: scratch)
        let before = try Self.Untouched(db)
        let ordersBefore = try Self.run(["orders", "--format", "json", "--db", db]).stdout

        let forgotten = try Self.run(["forget", "--stream", "alice", "--format", "json", "--db", db])
        let answer = try JSONParser.parse(forgotten.stdout)
        #expect(answer["events"] == .integer(3))
        #expect(answer["correlationIds"] == .array([.string("corr-alice-7")]))
        #expect(answer["segment"]?["anonymousId"] == .string("alice"))

        try Self.expectForgotten("alice", db, before)
        let replayed = try Self.run(["replay", "--verify", "--db", db]).stdout
        #expect(replayed.contains("(and 3 forgotten)") && replayed.contains("all agree"), "\(replayed)")
        // The order's total stays for the analyst, without the stream.
        let orders = try Self.run(["orders", "--format", "json", "--db", db]).stdout
        #expect(orders != ordersBefore && !orders.contains("alice"))
        #expect(!(try Self.run(["export", "--skip-forgotten", "--db", db]).stdout.contains("forgotten")))
        // The stream's id is free again: a new session under it starts at version 1.
        let reused = try Self.run(["cart", "add", "--product", "p9", "--price", "1.00", "--stream", "alice", "--format", "json", "--db", db])
        #expect(reused.stdout.contains(#""version":1"#), "\(reused.stdout)")
    }

    /// Forgotten, then compacted: none of the stream's own strings is left in the log's file.
    @Test func afterForgetAndCompactNoneOfTheStreamsStringsIsInTheFile() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.twoSessions(in: scratch)
        _ = try Self.run(["projections", "run", "--tracker-dir", scratch.child("trackers"), "--db", db])
        let uniques = ["Quill of Alice", "corr-alice-7", "cmd-alice-1", "o-alice", "p-quill"]
        func inFile() throws -> [String] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: db + "/data.mdb"))
            return (uniques + ["alice"]).filter { bytes.range(of: Data($0.utf8)) != nil }
        }
        #expect(try inFile() == uniques + ["alice"], "the strings were in the file to begin with")
        _ = try Self.run(["forget", "--stream", "alice", "--db", db])
        _ = try Self.run(["compact", "--db", db])
        #expect(try inFile() == [])
        let verify = try JSONParser.parse(try Self.run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(3))
    }

    @Test func aLogWithForgottenStreamsRoundTripsThroughExportImportAndCopy() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.twoSessions(in: scratch)
        _ = try Self.run(["forget", "--stream", "alice", "--db", db])
        let export = try Self.run(["export", "--db", db]).stdout
        #expect(export.contains(#""forgotten":true"#))
        _ = try Self.run(["import", "-", "--db", scratch.child("imported")], stdin: export)
        #expect(try Self.run(["export", "--db", scratch.child("imported")]).stdout == export)
        _ = try Self.run(["copy", "--from", db, "--to", scratch.child("copy")])
        #expect(try Self.run(["export", "--db", scratch.child("copy")]).stdout == export)
        let verify = try JSONParser.parse(try Self.run(["verify", "--format", "json", "--db", scratch.child("copy")]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(3))
    }

    @Test func aTombstoneThatCarriesDataIsRefused() throws {
        let scratch = TemporaryDirectory()
        let line =
            #"{"position":1,"version":1,"eventId":"01a2199d-8e22-7ec9-968e-44d276fc6ce7","type":"app.launched","actor":"system","timestamp":"2026-11-26T20:48:05.666298Z","stream":"s","forgotten":true}"#
        let refused = try Self.run(["import", "-", "--db", scratch.child("log")], stdin: line + "\n", expecting: 65)
        #expect(refused.stderr.contains("carries no"), "\(refused.stderr)")
    }

    @Test func anOlderLogForgetsOnlyOnceUpgraded() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("old")
        try FileManager.default.copyItem(atPath: FlowLogProcess.fixtures.appendingPathComponent("logs/kinds-v1/log").path, toPath: db)
        let refused = try Self.run(["forget", "--stream", "cart", "--db", db], expecting: 65)
        #expect(refused.stderr.contains("flowlog upgrade --db \(db)"), "\(refused.stderr)")
        let before = try Self.run(["export", "--stream", "demo", "--db", db]).stdout
        _ = try Self.run(["upgrade", "--db", db])
        // The rewrite into the salted layout keeps every event, state and fingerprint.
        #expect(try Self.run(["export", "--stream", "demo", "--db", db]).stdout == before)
        _ = try Self.run(["replay", "--verify", "--db", db])
        _ = try Self.run(["forget", "--stream", "cart", "--db", db])
        #expect(try Self.run(["export", "--stream", "demo", "--db", db]).stdout == before)
        let verify = try JSONParser.parse(try Self.run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true))
        _ = try Self.run(["replay", "--verify", "--db", db])
    }

    /// `Fixtures/logs/schema-3`: the first log of schema 3, written with a forgotten stream ("gone").
    @Test func theSchema3FixtureReadsWithItsForgottenStream() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        let fixtures = FlowLogProcess.fixtures.appendingPathComponent("logs")
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("schema-3").path, toPath: db)
        let export = try String(contentsOf: fixtures.appendingPathComponent("schema-3.ndjson"), encoding: .utf8)
        #expect(try Self.run(["export", "--db", db]).stdout == export)
        let verify = try String(contentsOf: fixtures.appendingPathComponent("schema-3.verify.json"), encoding: .utf8)
        #expect(try Self.run(["verify", "--format", "json", "--db", db]).stdout == verify)
        _ = try Self.run(["state", "--stream", "gone", "--db", db], expecting: 66)
        _ = try Self.run(["replay", "--verify", "--db", db])
        _ = try Self.run(["import", fixtures.appendingPathComponent("schema-3.ndjson").path, "--db", scratch.child("imported")])
        #expect(try Self.run(["export", "--db", scratch.child("imported")]).stdout == export)
    }
}
