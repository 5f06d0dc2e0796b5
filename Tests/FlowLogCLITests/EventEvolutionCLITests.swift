import FlowLogStore
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
        let amount = try FlowLogProcess.run([
            "cart", "apply-discount", "--discount", "A1", "--amount", "1.50", "--product", "p6",
            "--stream", "cart", "--db", db,
        ])
        #expect(amount.status == 1)
        #expect(amount.stderr.contains("logUpgradeRequired") && amount.stderr.contains("flowlog upgrade"), "\(amount.stderr)")
        let before = try KindsV1FixtureTests.run(["export", "--db", db]).stdout

        let upgrade = try KindsV1FixtureTests.run(["upgrade", "--backup", scratch.child("backup"), "--db", db])
        #expect(upgrade.stdout.contains("from log schema 1 to \(LogSettings.newestLogSchema)"))
        #expect(try KindsV1FixtureTests.run(["export", "--db", scratch.child("backup")]).stdout == before, "the backup is the log as it was")
        #expect(try KindsV1FixtureTests.run(["export", "--db", db]).stdout == before, "an upgrade rewrites no record")
        let again = try KindsV1FixtureTests.run(["upgrade", "--db", db])
        #expect(again.stdout.contains("already"))

        let accepted = try FlowLogProcess.run([
            "cart", "apply-discount", "--discount", "A1", "--amount", "1.50", "--product", "p6",
            "--stream", "cart", "--db", db,
        ])
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

@Suite("Currencies from the command line", .serialized)
struct CurrencyCLITests {
    @Test func aLogInEuroRecordsItsProductsInEuroAndTheOldLogOnlyInDollars() throws {
        let scratch = TemporaryDirectory()
        let euro = scratch.child("euro")
        _ = try KindsV1FixtureTests.run(["init", "--currency", "EUR", "--db", euro])
        let added = try KindsV1FixtureTests.run(["cart", "add", "--product", "p1", "--price", "2.00", "--stream", "s", "--db", euro])
        #expect(added.stdout.contains(#""currency":"EUR""#), "\(added.stdout)")
        let mismatch = try FlowLogProcess.run([
            "cart", "add", "--product", "p2", "--price", "1.00", "--currency", "USD", "--stream", "s", "--db", euro,
        ])
        #expect(mismatch.status == 1 && mismatch.stderr.contains("currencyMismatch"), "\(mismatch.stderr)")
        let state = try KindsV1FixtureTests.run(["state", "--stream", "s", "--db", euro]).stdout
        #expect(state.contains("total 2.00 EUR"), "\(state)")
        let csv = CSVTable(try KindsV1FixtureTests.run(["export", "--format", "csv", "--db", euro]).stdout)
        #expect(csv.column("currency") == ["EUR"])
        #expect(csv.column("event_version") == ["2"])

        // The log of the build before: dollars are version 1 and welcome; euros wait for the upgrade.
        let old = try KindsV1FixtureTests.copyOfLog(in: scratch)
        let dollars = try FlowLogProcess.run([
            "cart", "add", "--product", "p-new", "--price", "1.00", "--currency", "USD", "--stream", "fresh", "--db", old,
        ])
        #expect(dollars.status == 0, "\(dollars.stderr)")
        let euros = try FlowLogProcess.run([
            "cart", "add", "--product", "p-new", "--price", "1.00", "--currency", "EUR", "--stream", "fresh2", "--db", old,
        ])
        #expect(euros.status == 1 && euros.stderr.contains("logUpgradeRequired"), "\(euros.stderr)")
        let segment = scratch.child("trackers")
        _ = try KindsV1FixtureTests.run(["projections", "run", "--tracker-dir", segment, "--db", euro])
        let calls = try String(contentsOfFile: segment + "/segment.ndjson", encoding: .utf8)
        #expect(calls.contains(#""currency":"EUR""#), "Segment's Product Added names the cart's currency")
    }
}
