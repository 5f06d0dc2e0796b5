import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `Fixtures/logs/eur-orders`: written by the last FlowLog whose row index took an order from its
/// event alone, in USD whatever its cart's currency. Read as it is, its EUR session's orders come
/// back in USD through a head and `replay --verify` names the defect; `flowlog upgrade` repairs
/// the rows and the fingerprints taken from them, and nothing else.
@Suite("Repairing the rows earlier FlowLogs kept")
struct KeptRowRepairCLITests {
    private func run(_ arguments: [String], expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        let result = try FlowLogProcess.run(arguments)
        #expect(result.status == status, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        return result
    }

    private func currencies(of stream: String, _ db: String) throws -> [String] {
        let state = try JSONParser.parse(try run(["state", "--stream", stream, "--format", "json", "--db", db]).stdout)
        guard case .array(let orders) = state["orders"] else { return [] }
        return orders.compactMap { if case .string(let currency) = $0["currency"] { currency } else { nil } }
    }

    @Test func upgradeRepairsTheRowsAndFingerprintsAndNothingElse() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        let fixtures = FlowLogProcess.fixtures.appendingPathComponent("logs")
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("eur-orders").path, toPath: db)
        let export = try String(contentsOf: fixtures.appendingPathComponent("eur-orders.ndjson"), encoding: .utf8)

        // As that build left it: the rows it kept, and what it recorded from them.
        #expect(try currencies(of: "eur", db) == ["USD", "USD", "USD"])
        let before = try run(["replay", "--verify", "--db", db], expecting: 1)
        #expect(before.stdout.contains("stream eur first disagrees at position 32"))
        #expect(before.stdout.contains("`flowlog upgrade` repairs"))

        let upgrade = try JSONParser.parse(try run(["upgrade", "--format", "json", "--db", db]).stdout)
        #expect(upgrade["repaired"]?["streams"] == .integer(1))
        #expect(upgrade["repaired"]?["rows"] == .integer(3))
        #expect(upgrade["repaired"]?["fingerprints"] == .integer(17))
        guard case .string(let backup) = upgrade["backup"] else {
            Issue.record("no backup: \(upgrade)")
            return
        }

        #expect(try currencies(of: "eur", db) == ["EUR", "EUR", "EUR"])
        #expect(try currencies(of: "usd", db) == ["USD", "USD", "USD"])
        let after = try run(["replay", "--verify", "--db", db])
        #expect(after.stdout.contains("66 recorded states compared, all agree"))
        #expect(try run(["export", "--db", db]).stdout == export, "the events are unchanged")
        _ = try run(["verify", "--db", db])
        #expect(try run(["upgrade", "--db", db]).stdout.contains("nothing was changed"))
        // The backup is the log as it was.
        _ = try run(["replay", "--verify", "--db", backup], expecting: 1)
        #expect(try run(["export", "--db", backup]).stdout == export)
    }
}
