import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `flowlog compact` on a PostgreSQL log: `VACUUM FULL` of the log's tables, after which the
/// relation files no longer hold deleted rows, and the log answers as before.
@Suite("compact on PostgreSQL")
struct PostgresCompactCLITests {
    private let server = PostgresServer.shared

    @Test func vacuumFullRewritesTheTablesAndTheLogAnswersAsBefore() throws {
        let schema = server.freshName("log")
        let url = server.url(schema: schema)
        let lines = (0..<400).map { #"{"type":"cart.addProduct","stream":"v\#($0 % 5)","productId":"p\#($0 % 30)","unitPrice":100,"quantity":1}"# }
        #expect(try FlowLogProcess.run(["send", "--db", url], stdin: lines.joined(separator: "\n") + "\n").status == 0)
        // Rows deleted by hand (as an erasure would), whose bytes stay in the table's file until a rewrite.
        _ = try server.psql("INSERT INTO \"\(schema)\".local_storage (key, value) SELECT 'gone-' || n, true FROM generate_series(1, 20000) n")
        _ = try server.psql("DELETE FROM \"\(schema)\".local_storage WHERE key LIKE 'gone-%'")
        let export = try FlowLogProcess.run(["export", "--db", url])
        let compacted = try FlowLogProcess.run(["compact", "--format", "json", "--db", url])
        #expect(compacted.status == 0, "\(compacted.stderr)")
        let answer = try JSONParser.parse(compacted.stdout)
        guard case .integer(let before)? = answer["bytesBefore"], case .integer(let after)? = answer["bytesAfter"] else {
            Issue.record("\(compacted.stdout)")
            return
        }
        #expect(after < before, "\(before) → \(after)")
        #expect(try FlowLogProcess.run(["export", "--db", url]).stdout == export.stdout)
        #expect(try FlowLogProcess.run(["verify", "--db", url]).status == 0)
        let text = try FlowLogProcess.run(["compact", "--db", url])
        #expect(text.stdout.hasPrefix("compacted postgres"), "\(text.stdout) \(text.stderr)")
    }

    @Test func theHelpSaysThatTheTablesAreLockedMeanwhile() throws {
        let help = try FlowLogProcess.run(["help", "compact"])
        #expect(help.stdout.contains("VACUUM FULL"))
        #expect(help.stdout.contains("ACCESS EXCLUSIVE"))
    }
}
