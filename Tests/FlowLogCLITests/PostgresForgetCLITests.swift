import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

/// `flowlog forget` on PostgreSQL: the contract the LMDB log passes (`ForgetCLITests`): a forgotten
/// stream answers as one that never existed, every other stream as before, the log verifies with
/// the forgotten events counted and round-trips through export and import; an older log refuses
/// until `flowlog upgrade` rewrote its records.
@Suite("Forgetting a stream on PostgreSQL")
struct PostgresForgetCLITests {
    private let server = PostgresServer.shared

    static func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        try ForgetCLITests.run(arguments, stdin: stdin, expecting: status)
    }

    /// `ForgetCLITests`' two sessions, the first one "alice-pg"; the demo's tracker files go into
    /// `scratch` (for a PostgreSQL log they would go into the current folder).
    static func twoSessions(_ db: String, scratch: TemporaryDirectory) throws {
        try ForgetCLITests.twoSessions(db: db, alice: "alice-pg", demoTrackers: scratch.child("demo-trackers"))
    }

    /// The audit event is written in the forget's own transaction: its row and the forgotten
    /// rows carry one transaction id (`xmin`), so no erasure is ever committed without it.
    @Test func theAuditEventIsCommittedWithTheErasure() throws {
        let schema = server.freshName("forget_audit")
        let db = server.url(schema: schema)
        let scratch = TemporaryDirectory()
        try Self.twoSessions(db, scratch: scratch)
        _ = try Self.run(["forget", "--stream", "alice-pg", "--reason", "request 2026-118", "--db", db])
        let trail = try Self.run(["log", "--stream", "flowlog:erasures", "--format", "json", "--db", db]).stdoutLines
        #expect(trail.count == 1)
        let audit = try JSONParser.parse(trail.first ?? "{}")
        #expect(audit["type"] == .string("log.streamForgotten"))
        #expect(audit["data"]?["events"] == .integer(3) && audit["data"]?["reason"] == .string("request 2026-118"))
        let transactions = try server.psql(
            #"SELECT count(DISTINCT xmin::text) FROM "\#(schema)".events WHERE stream IS NULL OR stream = 'flowlog:erasures'"#)
        #expect(transactions == "1", "the forgotten rows and the audit event in one transaction")
    }

    @Test func aForgottenStreamAnswersAsOneThatNeverExisted() throws {
        let schema = server.freshName("forget")
        let db = server.url(schema: schema)
        let scratch = TemporaryDirectory()
        try Self.twoSessions(db, scratch: scratch)
        #expect(try server.psql("SELECT DISTINCT get_byte(record, 0) FROM \"\(schema)\".events") == "2", "a new log writes salted records")
        let before = try ForgetCLITests.Untouched(db)
        _ = try Self.run(["projections", "run", "--tracker-dir", scratch.child("trackers"), "--db", db])

        let forgotten = try Self.run(["forget", "--stream", "alice-pg", "--format", "json", "--db", db])
        let answer = try JSONParser.parse(forgotten.stdout)
        #expect(answer["events"] == .integer(3))
        #expect(answer["correlationIds"] == .array([.string("corr-alice-7")]))

        try ForgetCLITests.expectForgotten("alice-pg", db, before)
        _ = try Self.run(["forget", "--stream", "nobody", "--db", db], expecting: 66)
        _ = try Self.run(["replay", "--verify", "--db", db])
        #expect(!(try Self.run(["log", "--db", db]).stdout.contains("alice")))

        // The rows: envelope kept, personal columns NULL; derived rows gone; the order's total kept.
        let rows = try server.psql(
            """
            SELECT count(*), count(stream), count(data), count(correlation_id), count(fingerprint), min(octet_length(record))
            FROM "\(schema)".events WHERE stream IS NULL
            """)
        #expect(rows == "3|0|0|0|0|\(RecordCodec.forgottenSize)", "\(rows)")
        for table in ["streams", "commands", "snapshots", "stream_states"] {
            #expect(try server.psql("SELECT count(*) FROM \"\(schema)\".\(table) WHERE stream = 'alice-pg'") == "0", "\(table)")
        }
        #expect(try server.psql("SELECT count(*) FROM \"\(schema)\".local_storage WHERE key = 'alice-pg'") == "0")
        #expect(try server.psql("SELECT stream || '|' || order_id || '|' || total FROM \"\(schema)\".orders WHERE stream = ''") == "||2500")
        let orders = try Self.run(["orders", "--format", "json", "--db", db]).stdout
        #expect(!orders.contains("alice") && !orders.contains("o-alice"), "\(orders)")

        // The id is free again: a new session under it starts at version 1.
        let reused = try Self.run(["cart", "add", "--product", "p9", "--price", "1.00", "--stream", "alice-pg", "--format", "json", "--db", db])
        #expect(reused.stdout.contains(#""version":1"#), "\(reused.stdout)")
        #expect(try Self.run(["verify", "--db", db]).status == 0)
    }

    /// `verify` still catches what is not a forgetting: a byte flipped in the record after a
    /// forgotten one, a forgotten row given its data back.
    @Test func verifyCatchesAlterationsNextToForgottenRecords() throws {
        let schema = server.freshName("forget")
        let db = server.url(schema: schema)
        let scratch = TemporaryDirectory()
        try Self.twoSessions(db, scratch: scratch)
        _ = try Self.run(["forget", "--stream", "alice-pg", "--db", db])
        let next = try server.psql("SELECT max(position) + 1 FROM \"\(schema)\".events WHERE stream IS NULL")
        _ = try server.psql("UPDATE \"\(schema)\".events SET record = set_byte(record, 60, get_byte(record, 60) # 1) WHERE position = \(next)")
        let broken = try Self.run(["verify", "--db", db], expecting: 65)
        #expect(broken.stdout.contains("position \(next)") || broken.stderr.contains("position \(next)"), "\(broken.stdout) \(broken.stderr)")
        _ = try server.psql("UPDATE \"\(schema)\".events SET record = set_byte(record, 60, get_byte(record, 60) # 1) WHERE position = \(next)")
        _ = try Self.run(["verify", "--db", db])
        _ = try server.psql(
            "UPDATE \"\(schema)\".events SET data = '{\"name\":\"Quill of Alice\"}' WHERE position = (SELECT min(position) FROM \"\(schema)\".events WHERE stream IS NULL)"
        )
        let refilled = try Self.run(["verify", "--db", db], expecting: 65)
        #expect((refilled.stdout + refilled.stderr).contains("data"), "\(refilled.stdout) \(refilled.stderr)")
    }

    @Test func aLogWithForgottenStreamsRoundTripsThroughExportAndImport() throws {
        let db = server.url(schema: server.freshName("forget"))
        let scratch = TemporaryDirectory()
        try Self.twoSessions(db, scratch: scratch)
        _ = try Self.run(["forget", "--stream", "alice-pg", "--db", db])
        let export = try Self.run(["export", "--db", db]).stdout
        #expect(export.contains(#""forgotten":true"#))
        let imported = server.url(schema: server.freshName("imported"))
        _ = try Self.run(["import", "-", "--db", imported], stdin: export)
        #expect(try Self.run(["export", "--db", imported]).stdout == export)
        let verify = try JSONParser.parse(try Self.run(["verify", "--format", "json", "--db", imported]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(3), "\(verify)")
        // And from PostgreSQL into LMDB, and back: byte for byte.
        _ = try Self.run(["import", "-", "--db", scratch.child("lmdb")], stdin: export)
        #expect(try Self.run(["export", "--db", scratch.child("lmdb")]).stdout == export)
        _ = try Self.run(["replay", "--verify", "--db", imported])
    }
}
