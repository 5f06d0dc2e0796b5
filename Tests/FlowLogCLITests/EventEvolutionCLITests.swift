import FlowLog
import FlowLogTesting
import Foundation
import Testing

/// A log written before event versions, taken forward: read and written as it is, refusing what
/// needs a newer kind version until `flowlog upgrade`, and then taking it.
@Suite("Event evolution from the command line", .serialized)
struct EventEvolutionCLITests {
    @Test func anOldLogTakesWhatItsSchemaHoldsUntilItIsUpgraded() throws {
        let scratch = TemporaryDirectory()
        let db = try KindsV1FixtureTests.copyOfLog(in: scratch)
        let percent = try FlowLogProcess.run(["cart", "apply-discount", "--discount", "P5", "--percent", "5", "--stream", "extra", "--db", db])
        #expect(percent.status == 0, "\(percent.stderr)")
        let amount = try FlowLogProcess.run(["cart", "apply-discount", "--discount", "A1", "--amount", "1.50", "--product", "p6",
                                             "--stream", "cart", "--db", db])
        #expect(amount.status == 1)
        #expect(amount.stderr.contains("logUpgradeRequired") && amount.stderr.contains("flowlog upgrade"), "\(amount.stderr)")
        let before = try KindsV1FixtureTests.run(["export", "--db", db]).stdout

        let upgrade = try KindsV1FixtureTests.run(["upgrade", "--backup", scratch.child("backup"), "--db", db])
        #expect(upgrade.stdout.contains("from log schema 1 to \(LogSettings.newestLogSchema)"))
        #expect(try KindsV1FixtureTests.run(["export", "--db", scratch.child("backup")]).stdout == before, "the backup is the log as it was")
        #expect(try KindsV1FixtureTests.run(["export", "--db", db]).stdout == before, "an upgrade rewrites no record")
        let again = try KindsV1FixtureTests.run(["upgrade", "--db", db])
        #expect(again.stdout.contains("already"))

        let accepted = try FlowLogProcess.run(["cart", "apply-discount", "--discount", "A1", "--amount", "1.50", "--product", "p6",
                                               "--stream", "cart", "--db", db])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains(#""amountOff":150"#))
        #expect(try KindsV1FixtureTests.run(["verify", "--db", db]).status == 0)
        #expect(try KindsV1FixtureTests.run(["replay", "--verify", "--db", db]).stdout.contains("all agree"))
        // Today's export, with a version 2 event among version 1 records, round-trips byte for byte.
        let export = try KindsV1FixtureTests.run(["export", "--db", db]).stdout
        #expect(export.contains(#""eventVersion":2"#))
        _ = try KindsV1FixtureTests.run(["import", "-", "--db", scratch.child("imported")], stdin: export)
        #expect(try KindsV1FixtureTests.run(["export", "--db", scratch.child("imported")]).stdout == export)
    }

    @Test func aNewLogTakesItsCurrencyOnceAndKeepsIt() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("eur")
        let created = try KindsV1FixtureTests.run(["init", "--currency", "EUR", "--format", "json", "--db", db])
        #expect(created.stdout == #"{"log":"\#(db)","logSchema":\#(LogSettings.newestLogSchema),"currency":"EUR"}"# + "\n")
        _ = try KindsV1FixtureTests.run(["cart", "add", "--product", "p1", "--price", "1.00", "--stream", "s", "--db", db])
        let change = try FlowLogProcess.run(["init", "--currency", "GBP", "--db", db])
        #expect(change.status == 64)
        #expect(change.stderr.contains("fixed once it holds"))
        let bad = try FlowLogProcess.run(["init", "--currency", "euro", "--db", scratch.child("other")])
        #expect(bad.status == 64)
    }
}
