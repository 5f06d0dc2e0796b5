import FlowLogTesting
import Foundation
import Testing

/// Numbers and dates in options: a bad one is a usage error (64) saying what was wrong and what
/// is accepted; a negative number is a value, not an option; impossible dates are refused, and a
/// date alone means midnight UTC.
@Suite("numbers and dates")
struct NumbersAndDatesCLITests {
    @Test func numbersSayWhatIsWrongAndWhatIsAccepted() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo", "--stream", "d"] + db)
        let cases: [([String], String)] = [
            (
                ["cart", "add", "--product", "p", "--price", "1e2"],
                "The value '1e2' is invalid for '--price <price>': not a price; write decimal text with at most two decimals, such as 12.50 or 100"
            ),
            (["cart", "add", "--product", "p", "--price", "1,50"], "The value '1,50' is invalid for '--price <price>': not a price"),
            (
                ["cart", "add", "--product", "p", "--price", "1", "--quantity", "1e2"],
                "The value '1e2' is invalid for '--quantity <quantity>': not a whole number; write digits only"
            ),
            (
                ["cart", "add", "--product", "p", "--price", "1", "--quantity", "2.0"],
                "The value '2.0' is invalid for '--quantity <quantity>': not a whole number"
            ),
            (["log", "--limit", "1e2"], "The value '1e2' is invalid for '--limit <limit>': not a whole number"),
            (["log", "--limit", "-1"], "--limit must be 0 or more; got -1"),
            (["log", "--from", "0"], "--from must be a position, 1 or more; got 0"),
            (["snapshots", "--interval", "1.5"], "The value '1.5' is invalid for '--interval <interval>': not a whole number"),
            (["snapshots", "--interval", "-2"], "--interval must be 0 or more; got -2"),
            (["bisect", "--stream", "d", "--run", "true", "--timeout", "-1"], "--timeout must be a number of seconds, 0 or more"),
            (
                ["bisect", "--stream", "d", "--run", "true", "--timeout", "soon"],
                "The value 'soon' is invalid for '--timeout <timeout>': not a number of seconds"
            ),
            (["state", "--stream", "d", "--at", "-1"], "positions 1 through 17"),
        ]
        for (arguments, message) in cases {
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Missing value"), "\(arguments): \(result.stderr)")
        }
        // A negative value is a value, as with `--price=-1`: the field checks judge it.
        for arguments in [["cart", "add", "--product", "p", "--price", "-1"], ["cart", "add", "--product", "p", "--price=-1"]] {
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("invalidPrice"), "\(arguments): \(result.stderr)")
        }
        let quantity = try FlowLogProcess.run(["cart", "add", "--product", "p", "--price", "1", "--quantity", "-3"] + db)
        #expect(quantity.stderr.contains("invalidQuantity"), "\(quantity.stderr)")
        let version = try FlowLogProcess.run(["cart", "checkout", "--stream", "d", "--expected-version", "-1"] + db)
        #expect(version.status == 1)
        #expect(version.stderr.contains("versionConflict"), "\(version.stderr)")
    }

    @Test func datesAreRealDatesAndADateAloneIsMidnightUTC() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo", "--stream", "d"] + db)
        for (value, message) in [
            ("2026-02-30T00:00:00Z", "2026-02-30 is not a date: February 2026 has 28 days"),
            ("2026-02-30", "2026-02-30 is not a date: February 2026 has 28 days"),
            ("2028-02-30", "February 2028 has 29 days"),
            ("2026-04-31T10:00:00+02:00", "April 2026 has 30 days"),
            ("2026-13-01", "there is no month 13"),
            ("2026-11-21T25:00:00Z", "is not a time"),
            (
                "yesterday",
                "write an RFC 3339 time such as 2026-11-21T13:25:17Z (or with an offset, such as +01:00), or a date alone such as 2026-11-21 (midnight UTC)"
            ),
        ] {
            for option in ["--since", "--until"] {
                let result = try FlowLogProcess.run(["export", option, value] + db)
                #expect(result.status == 64, "\(option) \(value): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(option) \(value): \(result.stderr)")
            }
        }
        let bareDate = try FlowLogProcess.run(["export", "--since", "2026-02-01", "--until", "2999-01-01"] + db)
        let midnight = try FlowLogProcess.run(["export", "--since", "2026-02-01T00:00:00Z", "--until", "2999-01-01T00:00:00Z"] + db)
        #expect(bareDate.status == 0, "\(bareDate.stderr)")
        #expect(bareDate.stdout == midnight.stdout)
        #expect(bareDate.stdoutLines.count == 17)
        let leap = try FlowLogProcess.run(["export", "--until", "2028-02-29"] + db)
        #expect(leap.status == 0, "\(leap.stderr)")
    }
}
