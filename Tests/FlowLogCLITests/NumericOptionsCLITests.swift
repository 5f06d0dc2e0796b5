import FlowLogTesting
import Foundation
import Testing

/// Issue 40: every number the command line takes is bounded where it enters. Each option is given
/// the extremes (past 64 bits, 2^63-1, the most negative, infinities, exponents): the process
/// ends with its own status, never by a signal (a trap on overflow dies of SIGILL or SIGTRAP),
/// and a refusal is a usage error (64) that says what was wrong and how to mend it.
@Suite("numeric options at their extremes")
struct NumericOptionsCLITests {
    static let past64Bits = "99999999999999999999"
    static let largest = "9223372036854775807"
    static let smallest = "-9223372036854775808"

    /// A log with a demo session in stream `d` (17 events).
    static func demoLog() throws -> (TemporaryDirectory, [String]) {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo", "--stream", "d"] + db)
        return (folder, db)
    }

    @Test func positionsLimitsAndCountsAreRefusedPast64BitsAndPastTheLog() throws {
        let (folder, db) = try Self.demoLog()
        defer { withExtendedLifetime(folder) {} }
        let cases: [([String], String)] = [
            (
                ["state", "--stream", "d", "--at", Self.past64Bits],
                "The value '\(Self.past64Bits)' is invalid for '--at <at>': past the whole numbers FlowLog reads"
            ),
            (
                ["state", "--stream", "d", "--at", "-" + Self.past64Bits],
                "past the whole numbers FlowLog reads (-9223372036854775808 through 9223372036854775807)"
            ),
            (["state", "--stream", "d", "--at", Self.largest], "--at 9223372036854775807 is outside"),
            (["state", "--stream", "d", "--at", Self.smallest], "--at -9223372036854775808 is outside"),
            (["view", "--stream", "d", "--at", Self.largest], "positions 1 through 17"),
            (["log", "--limit", Self.past64Bits], "'--limit <limit>': past the whole numbers FlowLog reads"),
            (["log", "--limit", Self.smallest], "--limit must be 0 or more"),
            (["log", "--from", Self.largest], "--from 9223372036854775807 is outside"),
            (["log", "--from", Self.past64Bits], "past the whole numbers"),
            (["log", "--from", Self.smallest], "--from must be a position, 1 or more"),
            (["log", "--to-position", Self.largest], "--to-position 9223372036854775807 is outside"),
            (["log", "--follow", "--from", Self.largest], "choose a position in that range, or 18 for the next event"),
            (["export", "--from-position", Self.past64Bits], "past the whole numbers"),
            (["export", "--to-position", Self.smallest], "--to-position must be a position, 1 or more"),
            (["replay", "--to", Self.past64Bits], "past the whole numbers"),
            (["snapshots", "--interval", Self.past64Bits], "past the whole numbers"),
            (["snapshots", "--interval", Self.smallest], "--interval must be 0 or more"),
            (["retain", "--older-than", Self.past64Bits + "d", "--dry-run"], "at most 100 years' worth (36525d)"),
            (["retain", "--older-than", "36526d", "--dry-run"], "at most 100 years' worth (36525d)"),
            (["retain", "--set", Self.largest + "h"], "at most 100 years' worth (876600h)"),
            (["retain", "--set", "0w"], "a whole number of at least 1"),
            (["retain", "--older-than", "90d", "--batch-size", "0"], "--batch-size must be 1 or more"),
            (["retain", "--older-than", "90d", "--batch-size", Self.past64Bits], "--batch-size"),
            (["projections", "run", "--batch-size", Self.largest], "--batch-size 9223372036854775807 is not 1 through 2500"),
            (["projections", "run", "--batch-size", Self.past64Bits], "--batch-size"),
            (["projections", "run", "--delivery-deadline", "inf"], "--delivery-deadline takes seconds from"),
            (["projections", "run", "--delivery-deadline", "1e400"], "--delivery-deadline takes seconds from"),
            (["projections", "run", "--delivery-deadline", "nan"], "--delivery-deadline takes seconds from"),
            (
                ["bisect", "--stream", "d", "--run", "true", "--timeout", "1" + String(repeating: "0", count: 400)],
                "--timeout must be a number of seconds"
            ),
            (["bisect", "--stream", "d", "--run", "true", "--timeout", "1e400"], "not a number of seconds"),
        ]
        for (arguments, message) in cases {
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        // Positions past the log in an export are a lawful, empty selection.
        let empty = try FlowLogProcess.run(["export", "--from-position", Self.largest] + db)
        #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty.stderr)")
        let whole = try FlowLogProcess.run(["export", "--to-position", Self.largest] + db)
        #expect(whole.status == 0 && whole.stdout.split(separator: "\n").count == 17, "\(whole.stderr)")
    }

    @Test func commandFieldsAndVersionsAreRefusedWithTheirOwnCodes() throws {
        let (folder, db) = try Self.demoLog()
        defer { withExtendedLifetime(folder) {} }
        let usage: [([String], String)] = [
            (
                ["cart", "add", "--product", "p", "--price", Self.past64Bits],
                "more than 12 digits before the point, past every price and amount (at most 1000000.00)"
            ),
            (["cart", "add", "--product", "p", "--price", "-" + Self.past64Bits + ".50"], "more than 12 digits before the point"),
            (
                ["cart", "add", "--product", "p", "--price", "1", "--quantity", Self.past64Bits],
                "'--quantity <quantity>': past the whole numbers FlowLog reads"
            ),
            (["cart", "apply-discount", "--discount", "x", "--amount", Self.past64Bits], "more than 12 digits"),
            (
                ["cart", "add", "--product", "p", "--price", "1", "--expected-version", Self.past64Bits],
                "'--expected-version <expected-version>': past the whole numbers"
            ),
        ]
        for (arguments, message) in usage {
            let result = try FlowLogProcess.run(arguments + ["--stream", "d"] + db)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        // Numbers 64 bits hold but no field does: the command is refused with the field's code.
        let refused: [([String], String)] = [
            (["cart", "add", "--product", "p", "--price", "999999999999.99"], "invalidPrice"),
            (["cart", "add", "--product", "p", "--price", "1", "--quantity", Self.largest], "invalidQuantity"),
            (["cart", "add", "--product", "p", "--price", "1", "--quantity", Self.smallest], "invalidQuantity"),
            (["cart", "apply-discount", "--discount", "x", "--percent", Self.largest], "invalidPercent"),
            (["cart", "add", "--product", "p", "--price", "1", "--expected-version", Self.largest], "versionConflict"),
            (["cart", "add", "--product", "p", "--price", "1", "--expected-version", Self.smallest], "expectedVersion"),
        ]
        for (arguments, code) in refused {
            let result = try FlowLogProcess.run(arguments + ["--stream", "d"] + db)
            #expect([1, 64, 65].contains(result.status), "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(code) || result.stdout.contains(code), "\(arguments): \(result.stdout) \(result.stderr)")
        }
        #expect(try FlowLogProcess.run(["log", "--format", "json"] + db).stdout.split(separator: "\n").count == 17)
    }

    /// Issue 40's first case: a 20-digit number in any integer member of a line `send` reads.
    @Test func sendRefusesNumbersNoFieldHolds() throws {
        let (folder, db) = try Self.demoLog()
        defer { withExtendedLifetime(folder) {} }
        for number in [Self.past64Bits, "-" + Self.past64Bits, "1e999", "9223372036854775808"] {
            let line = #"{"type":"cart.addProduct","stream":"s","productId":"p","unitPrice":"# + number + #","quantity":1}"#
            let result = try FlowLogProcess.run(["send"] + db, stdin: line + "\n")
            #expect(result.status == 1, "\(number): \(result.status) \(result.stderr)")
            #expect(result.stdout.contains(#""ok":false"#), "\(number): \(result.stdout)")
        }
        #expect(try FlowLogProcess.run(["log", "--format", "json"] + db).stdout.split(separator: "\n").count == 17)
    }

    @Test func serveRefusesTimesAndCountsPastItsBounds() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let cases: [([String], String)] = [
            (["--request-timeout", "1e300"], "--request-timeout takes seconds from 0.001 through 86400"),
            (["--request-timeout", "inf"], "--request-timeout takes seconds from 0.001 through 86400"),
            (["--request-timeout", "nan"], "--request-timeout takes seconds"),
            (["--request-timeout", "0.0000001"], "--request-timeout takes seconds"),
            (["--heartbeat", "9223372036854775807"], "--heartbeat takes seconds from 0.001 through 86400"),
            (["--max-subscribers", Self.past64Bits], "--max-subscribers"),
            (["--max-subscribers", Self.smallest], "--max-subscribers must be 1 or more"),
            (["--subscriber-buffer", Self.past64Bits], "--subscriber-buffer"),
            (["--listen", "127.0.0.1:" + Self.past64Bits], "with a port from 0 through 65535"),
            (["--listen", "127.0.0.1:" + Self.largest], "with a port from 0 through 65535"),
            (["--listen", "127.0.0.1:-1"], "with a port from 0 through 65535"),
        ]
        for (arguments, message) in cases {
            let result = try FlowLogProcess.run(["serve"] + arguments + db)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.child("log")))
    }

    /// A knob for tests and measurements: numbers it cannot read leave the standard policy.
    @Test func aFoldPolicyPast64BitsIsNoTrap() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        for value in [
            "\(Self.past64Bits),\(Self.past64Bits)", "\(Self.largest),\(Self.largest),\(Self.largest),\(Self.largest)",
            "\(Self.smallest),\(Self.smallest)",
        ] {
            let result = try FlowLogProcess.run(["demo"] + db, environment: ["FLOWLOG_LMDB_FOLD": value])
            #expect(result.status == 0, "\(value): \(result.status) \(result.stderr)")
        }
        #expect(try FlowLogProcess.run(["verify"] + db).status == 0)
    }
}
