import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

/// An older PostgreSQL log (`Fixtures/logs/kinds-v1/postgres.sql`) forgets only once `flowlog
/// upgrade` rewrote its records; and after `forget` and `compact`, none of the stream's strings is
/// in the relation files of the log's tables.
@Suite("Forgetting on PostgreSQL: upgrade and compaction")
struct PostgresForgetUpgradeCLITests {
    private let server = PostgresServer.shared

    private func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        try PostgresForgetCLITests.run(arguments, stdin: stdin, expecting: status)
    }

    /// Loads the kinds-v1 dump (log schema 1) into a fresh schema and raises its schema to 2 as
    /// `flowlog upgrade` did before schema 3 (no record rewritten): the log a schema-2 build left.
    private func schema2Log() throws -> (schema: String, url: String) {
        let schema = server.freshName("kinds_v1")
        let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs/kinds-v1/postgres.sql")
        let dump = try String(contentsOf: fixture, encoding: .utf8).replacingOccurrences(of: "kinds_v1", with: schema)
        #expect(try server.load(dump: dump), "psql could not load the dump")
        _ = try server.psql("UPDATE \"\(schema)\".meta SET value = '2' WHERE key = 'schema'")
        return (schema, server.url(schema: schema))
    }

    /// Every column but `record`, row by row: what the upgrade's rewrite must leave as it was.
    private func columns(_ schema: String) throws -> String {
        try server.psql(
            """
            SELECT position, stream, version, event_id, type, actor, recorded_at, correlation_id, causation_id, data::text, fingerprint
            FROM "\(schema)".events ORDER BY position
            """)
    }

    @Test func aSchema2LogForgetsOnlyOnceUpgraded() throws {
        let (schema, db) = try schema2Log()
        // A schema-2 log keeps writing the whole layout: schema-2 builds still read it.
        _ = try run(["cart", "add", "--product", "p-new", "--price", "1.00", "--stream", "extra", "--db", db])
        #expect(try server.psql("SELECT DISTINCT get_byte(record, 0) FROM \"\(schema)\".events") == "1")
        let refused = try run(["forget", "--stream", "cart", "--db", db], expecting: 65)
        #expect(refused.stderr.contains("flowlog upgrade --db"), "\(refused.stderr)")
        #expect(refused.stderr.contains("log schema 2"), "\(refused.stderr)")
        let before = try run(["export", "--db", db]).stdout
        let demo = try run(["export", "--stream", "demo", "--db", db]).stdout
        let rows = try columns(schema)

        let scratch = TemporaryDirectory()
        _ = try run(["upgrade", "--backup", scratch.child("backup.ndjson"), "--db", db])
        #expect(
            try server.psql("SELECT value FROM \"\(schema)\".meta WHERE key = 'schema'") == String(LogSettings.newestLogSchema),
            "upgraded to the newest schema, which for PostgreSQL changes nothing after 3")
        #expect(try server.psql("SELECT DISTINCT get_byte(record, 0) FROM \"\(schema)\".events") == "2")
        #expect(try columns(schema) == rows, "the rewrite changed only the records")
        #expect(try run(["export", "--db", db]).stdout == before)
        _ = try run(["replay", "--verify", "--db", db])
        _ = try run(["verify", "--db", db])
        // New events are salted too, and chained to the rewritten ones.
        _ = try run(["cart", "add", "--product", "p-newer", "--price", "2.00", "--stream", "extra", "--db", db])

        _ = try run(["forget", "--stream", "cart", "--db", db])
        #expect(try run(["export", "--stream", "demo", "--db", db]).stdout == demo)
        _ = try run(["state", "--stream", "cart", "--db", db], expecting: 66)
        let verify = try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(18), "\(verify)")
        _ = try run(["replay", "--verify", "--db", db])
    }

    /// The relation files (heap, TOAST and indexes) of the log's tables, under the server's data
    /// directory, after a checkpoint wrote every dirty buffer out.
    private func relationFiles(_ schema: String, database: String) throws -> [String] {
        _ = try server.psql("CHECKPOINT")
        let paths = try server.psql(
            """
            WITH own AS (SELECT c.oid, c.reltoastrelid FROM pg_class c WHERE c.relnamespace = '"\(schema)"'::regnamespace),
            relations AS (
                SELECT oid FROM own
                UNION SELECT reltoastrelid FROM own WHERE reltoastrelid <> 0
                UNION SELECT i.indexrelid FROM pg_index i JOIN own ON i.indrelid = own.oid OR i.indrelid = own.reltoastrelid)
            SELECT pg_relation_filepath(oid) FROM relations WHERE pg_relation_filepath(oid) IS NOT NULL
            """, database: database
        ).split(separator: "\n").map(String.init)
        var files: [String] = []
        for path in paths {
            let main = server.folder + "/data/" + path
            files.append(main)
            var segment = 1
            while FileManager.default.fileExists(atPath: "\(main).\(segment)") {
                files.append("\(main).\(segment)")
                segment += 1
            }
        }
        return files
    }

    /// In a database of its own: `compact` (VACUUM FULL) keeps a row version that a transaction
    /// open in the same database may still see, and the suite's other tests keep transactions open
    /// in the shared one.
    @Test func afterForgetAndCompactNoneOfTheStreamsStringsIsInTheRelationFiles() throws {
        let schema = server.freshName("forget")
        let database = try server.createDatabase()
        let db = server.url(schema: schema, database: database)
        let scratch = TemporaryDirectory()
        try PostgresForgetCLITests.twoSessions(db, scratch: scratch)
        _ = try run(["projections", "run", "--tracker-dir", scratch.child("trackers"), "--db", db])
        let uniques = ["alice-pg", "Quill of Alice", "corr-alice-7", "cmd-alice-1", "o-alice", "p-quill"]
        func inFiles() throws -> [String] {
            let contents = try relationFiles(schema, database: database).map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            return uniques.filter { unique in contents.contains { $0.range(of: Data(unique.utf8)) != nil } }
        }
        #expect(try inFiles() == uniques, "the strings were in the files to begin with")
        _ = try run(["forget", "--stream", "alice-pg", "--db", db])
        _ = try run(["compact", "--db", db])
        #expect(try inFiles() == [])
        let verify = try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(3), "\(verify)")
    }
}
