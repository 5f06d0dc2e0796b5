import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

/// Log schema 4 from the command line: `Fixtures/logs/schema-4` (written by the first build of it,
/// with batch records pending) reads and verifies; folds held off or run after every commit give
/// the same log; a schema-3 log is raised by `flowlog upgrade` and then takes batch records.
@Suite("Batch records from the command line")
struct BatchRecordCLITests {
    private func run(_ arguments: [String], fold: String? = nil, stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        let result = try FlowLogProcess.run(arguments, stdin: stdin, environment: fold.map { ["FLOWLOG_LMDB_FOLD": $0] } ?? [:])
        #expect(result.status == status, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        return result
    }

    private static let fixtures = FlowLogProcess.fixtures.appendingPathComponent("logs")

    /// An export's lines without what differs between two runs of the same commands (ids, clocks).
    private func comparable(_ export: String) throws -> [JSONValue] {
        try export.split(separator: "\n").map { line in
            guard case .object(var members) = try JSONParser.parse(String(line)) else { return .null }
            members.removeAll { ["eventId", "timestamp", "correlationId", "causationId"].contains($0.0) }
            return .object(members)
        }
    }

    @Test func theSchema4FixtureReadsAndVerifies() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("schema-4").path, toPath: db)
        let export = try String(contentsOf: Self.fixtures.appendingPathComponent("schema-4.ndjson"), encoding: .utf8)
        #expect(try run(["export", "--db", db]).stdout == export)
        let verify = try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true))
        _ = try run(["replay", "--verify", "--db", db])
        let state = try JSONParser.parse(try run(["state", "--stream", "eur", "--format", "json", "--db", db]).stdout)
        guard case .array(let orders) = state["orders"] else {
            Issue.record("no orders in \(state)")
            return
        }
        #expect(orders.count == 3)
        // Appended to, the log keeps every event it had.
        _ = try run(
            ["send", "--db", db],
            stdin: #"{"type":"cart.addProduct","stream":"eur","productId":"p9","name":"Cup","unitPrice":100,"quantity":1}"# + "\n")
        #expect(try run(["export", "--db", db]).stdout.hasPrefix(export))
        #expect(try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)["intact"] == .bool(true))
    }

    @Test func foldsHeldOffOrAfterEveryCommitGiveTheSameLog() throws {
        let scratch = TemporaryDirectory()
        let commands = try String(contentsOf: Self.fixtures.appendingPathComponent("eur-orders.commands.ndjson"), encoding: .utf8)
        var exports: [[JSONValue]] = []
        for fold in ["1,1,1", "1000000000,1000000000"] {
            let db = scratch.child("log-\(fold)")
            for line in commands.split(separator: "\n") { _ = try run(["send", "--db", db], fold: fold, stdin: line + "\n") }
            exports.append(try comparable(try run(["export", "--db", db]).stdout))
            #expect(try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)["intact"] == .bool(true))
            _ = try run(["replay", "--verify", "--db", db])
        }
        #expect(exports[0].count == 66)
        #expect(exports[0] == exports[1])
    }

    @Test func upgradeRaisesASchema3LogWhichThenTakesBatchRecords() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("schema-3").path, toPath: db)
        let export = try String(contentsOf: Self.fixtures.appendingPathComponent("schema-3.ndjson"), encoding: .utf8)
        let upgrade = try JSONParser.parse(try run(["upgrade", "--format", "json", "--db", db]).stdout)
        #expect(upgrade["to"] == .integer(LogSettings.newestLogSchema), "\(upgrade)")
        let line = #"{"type":"cart.addProduct","stream":"demo","productId":"p9","name":"Cup","unitPrice":100,"quantity":1}"# + "\n"
        _ = try run(["send", "--db", db], fold: "1000000000,1000000000", stdin: line)
        _ = try run(["send", "--db", db], fold: "1000000000,1000000000", stdin: line)
        let after = try run(["export", "--db", db]).stdout
        #expect(after.hasPrefix(export))
        #expect(after.split(separator: "\n").count == export.split(separator: "\n").count + 2)
        #expect(try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)["intact"] == .bool(true))
        _ = try run(["replay", "--verify", "--db", db])
    }
}
