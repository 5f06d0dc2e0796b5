import FlowDomain
import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// The bug stories of `Fixtures/bugs`, found the way a developer would find them.
@Suite("replay and bisect from the command line")
struct ReplayCLITests {
    private let bugs = FlowLogProcess.fixtures.appendingPathComponent("bugs")

    private func fixture(_ name: String) -> String { bugs.appendingPathComponent(name).path }

    @Test func bisectNamesTheCouponThatMadeTheTotalNegative() throws {
        let result = try FlowLogProcess.run([
            "bisect", "--file", fixture("coupon-over-100.ndjson"), "--stream", "session-4711",
            "--invariant", "totals-non-negative", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try JSONParser.parse(result.stdout)
        #expect(answer["found"] == .bool(true))
        #expect(answer["event"]?["position"] == .integer(5))
        #expect(answer["event"]?["data"]?["percent"] == .integer(150))
        #expect(answer["after"]?["cart"]?["total"] == .integer(-2250))
        #expect(answer["before"]?["cart"]?["total"] == .integer(4499))
    }

    @Test func bisectWithAUsersCommandFindsTheSameEvent() throws {
        let check = #"python3 -c "import sys, json; sys.exit(1 if json.load(sys.stdin)['cart']['total'] < 0 else 0)""#
        let result = try FlowLogProcess.run(["bisect", "--file", fixture("coupon-over-100.ndjson"), "--stream", "session-4711", "--run", check])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("The first bad event of session-4711 is #5 (version 5)"))
        #expect(result.stdout.contains("~ cart.total: 4499 → -2250"))
    }

    @Test func bisectFindsTheEmptyCheckoutInTheLogAsInTheFile() throws {
        let folder = TemporaryDirectory()
        let imported = try FlowLogProcess.run(["import", fixture("empty-checkout.ndjson"), "--db", folder.child("log")])
        #expect(imported.status == 0, "\(imported.stderr)")
        for source in [["--file", fixture("empty-checkout.ndjson")], ["--db", folder.child("log")]] {
            let result = try FlowLogProcess.run(["bisect", "--stream", "session-1207", "--invariant", "all", "--format", "json"] + source)
            let answer = try JSONParser.parse(result.stdout)
            #expect(answer["event"]?["position"] == .integer(10), "\(source)")
            #expect(answer["event"]?["type"] == .string("cart.checkoutStarted"))
            guard case .string(let reason)? = answer["reason"] else {
                Issue.record("no reason")
                continue
            }
            #expect(reason.contains("checkout-not-empty"))
        }
        let healthy = try FlowLogProcess.run([
            "bisect", "--stream", "session-0815", "--invariant", "all", "--file", fixture("coupon-over-100.ndjson"),
        ])
        #expect(healthy.stdout.contains("passes the check: nothing to bisect"))
    }

    @Test func verifyNamesTheStreamAndPositionWhereTheOldReducerDiffers() throws {
        let result = try FlowLogProcess.run([
            "replay", "--verify", "--file", fixture("stale-discount.ndjson"),
            "--expected", fixture("stale-discount.expected.ndjson"), "--format", "json",
        ])
        #expect(result.status == 1)
        let lines = result.stdoutLines.map { try? JSONParser.parse($0) }
        #expect(lines.count == 2)
        #expect(lines.first??["stream"] == .string("session-2020"))
        #expect(lines.first??["position"] == .integer(7))
        #expect(lines.last??["disagreements"] == .integer(1))
    }

    @Test func verifyPassesOnAnUntouchedLogAndAnImportedOne() throws {
        let folder = TemporaryDirectory()
        _ = try FlowLogProcess.run(["demo", "--db", folder.child("log")])
        _ = try FlowLogProcess.run(["demo", "--db", folder.child("log")])
        let verified = try FlowLogProcess.run(["replay", "--verify", "--db", folder.child("log")])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        #expect(verified.stdout.contains("verified: 2 streams, 34 events, 34 recorded states compared, all agree"))
        _ = try FlowLogProcess.run(["import", fixture("stale-discount.ndjson"), "--db", folder.child("imported")])
        let imported = try FlowLogProcess.run(["replay", "--verify", "--db", folder.child("imported")])
        #expect(imported.status == 0)
        #expect(imported.stdout.contains("all agree"))
    }

    @Test func replayFromAFileShowsWhatTheLogShows() throws {
        let folder = TemporaryDirectory()
        _ = try FlowLogProcess.run(["demo", "--stream", "d", "--db", folder.child("log")])
        _ = try FlowLogProcess.run(["export", "--db", folder.child("log"), "-o", folder.child("d.ndjson")])
        let fromLog = try FlowLogProcess.run(["replay", "--db", folder.child("log"), "--from", "6", "--to", "12"])
        let fromFile = try FlowLogProcess.run(["replay", "--file", folder.child("d.ndjson"), "--from", "6", "--to", "12"])
        #expect(fromLog.stdout == fromFile.stdout)
        #expect(fromLog.stdout.contains("#9 d v9 cart.discountApplied"))
        #expect(fromLog.stdout.contains("~ cart.items[p-mug].discountedAmount: 2500 → 2250"))
        let json = try FlowLogProcess.run(["replay", "--db", folder.child("log"), "--stream", "d", "--format", "json"])
        #expect(json.stdoutLines.count == 17)
        let trace = try FlowLogProcess.run(["replay", "--db", folder.child("log"), "--trace"])
        let finalState = try FlowLogProcess.run(["state", "--db", folder.child("log"), "--stream", "d", "--format", "json"])
        #expect(trace.stdoutLines.last.map { $0 + "\n" } == finalState.stdout)
    }
}
