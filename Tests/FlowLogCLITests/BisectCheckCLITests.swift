import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `bisect --run 'CHECK'` as `git bisect run` users expect it: any way a check ends is a verdict,
/// 125 skips, a hung check is killed with everything it started, and the check reads what
/// `state --at` prints.
@Suite("bisect --run checks")
struct BisectCheckCLITests {
    private let coupon = FlowLogProcess.fixtures.appendingPathComponent("bugs/coupon-over-100.ndjson").path

    /// session-4711 has 8 versions; from version 5 on its total is negative.
    private func bisect(_ check: String, _ extra: [String] = []) throws -> FlowLogProcess.Result {
        try FlowLogProcess.run(["bisect", "--file", coupon, "--stream", "session-4711", "--run", check] + extra)
    }

    /// The check reads the state's version and exits 125 for the versions given, else bad for a negative total.
    private func skipping(_ versions: [Int]) -> String {
        #"python3 -c "import sys, json; s = json.load(sys.stdin); sys.exit(125 if s['version'] in \#(versions) else 1 if s['cart']['total'] < 0 else 0)""#
    }

    private func isGone(_ pid: pid_t) -> Bool {
        // Killed and reparented, it may linger a moment as a zombie until init reaps it.
        for _ in 0..<200 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            if let state = stat.split(separator: ")").last?.split(separator: " ").first, state == "Z" { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func aCheckThatIgnoresItsInputExitsEarlyOrCrashesIsAVerdict() throws {
        for check in ["false", "exit 3", "kill -SEGV $$"] {
            let result = try bisect(check)
            #expect(result.status == 0, "\(check): \(result.status) \(result.stderr)")
            #expect(result.stdout.hasPrefix("The first bad event of session-4711 is #1 (version 1)"), "\(check)")
        }
        let good = try bisect("true")
        #expect(good.status == 0)
        #expect(good.stdout.contains("passes the check: nothing to bisect"))
    }

    @Test func aCheckPastItsTimeoutIsKilledWithEverythingItStartedAndReported() throws {
        let folder = TemporaryDirectory()
        let pidFile = folder.child("sleeper.pid")
        let started = Date()
        let result = try bisect("sleep 1000 & echo $! > \(pidFile); wait", ["--timeout", "1"])
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(result.status == 124, "\(result.stderr)")
        #expect(result.stderr.contains("ran past the 1-second timeout"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let sleeper = pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))!
        defer { kill(sleeper, SIGKILL) }
        #expect(isGone(sleeper), "the check's own child was killed with it")
    }

    @Test func noChildOfACheckOutlivesBisect() throws {
        let folder = TemporaryDirectory()
        let pidFile = folder.child("sleeper.pid")
        let started = Date()
        let result = try bisect("sleep 1000 & echo $! > \(pidFile); exit 1")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20, "bisect does not wait for the check's children")
        let sleeper = pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))!
        defer { kill(sleeper, SIGKILL) }
        #expect(isGone(sleeper))
    }

    @Test func exit125SkipsAVersionAndBisectNarrowsAroundIt() throws {
        let pinned = try bisect(skipping([6]))
        #expect(pinned.status == 0, "\(pinned.stderr)")
        #expect(pinned.stdout.hasPrefix("The first bad event of session-4711 is #5 (version 5)"))

        // Version 4 is the last good one; skipped, it could be the first bad one as well as 5.
        let undecided = try bisect(skipping([4]))
        #expect(undecided.status == 3, "\(undecided.stderr)")
        #expect(undecided.stdout.contains("one of versions 4 through 5"), "\(undecided.stdout)")
        let json = try bisect(skipping([2, 3, 4]), ["--format", "json"])
        #expect(json.status == 3)
        let answer = try JSONParser.parse(json.stdout)
        #expect(answer["found"] == .bool(false))
        #expect(answer["candidates"] == .array([.integer(2), .integer(3), .integer(4), .integer(5)]))
        #expect(answer["skipped"] == .array([.integer(2), .integer(3), .integer(4)]))
    }

    @Test func theStateACheckReadsIsExactlyWhatStateAtPrints() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        #expect(try FlowLogProcess.run(["import", coupon] + db).status == 0)
        let positions = try FlowLogProcess.run(["log", "--stream", "session-4711", "--format", "json"] + db).stdoutLines.compactMap {
            line -> (Int, Int)? in
            let event = try JSONParser.parse(line)
            guard case .integer(let version)? = event["version"], case .integer(let position)? = event["position"] else { return nil }
            return (version, position)
        }
        #expect(positions.count == 8)
        for source in [db, ["--file", coupon]] {
            let seen = folder.child("seen-\(source[0])")
            let result = try FlowLogProcess.run(["bisect", "--stream", "session-4711", "--run", "cat >> \(seen); exit 1"] + source)
            #expect(result.status == 0, "\(result.stderr)")
            let states = try String(contentsOfFile: seen, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(states.count >= 3)
            for state in states {
                guard case .integer(let version)? = try JSONParser.parse(state)["version"],
                    let position = positions.first(where: { $0.0 == version })?.1
                else {
                    Issue.record("no version in \(state)")
                    continue
                }
                let printed = try FlowLogProcess.run(["state", "--stream", "session-4711", "--at", "\(position)", "--format", "json"] + db)
                #expect(state + "\n" == printed.stdout, "version \(version) from \(source[0])")
            }
        }
    }

    @Test func timeoutGoesWithRunAndIsANumberOfSeconds() throws {
        for extra in [["--invariant", "all", "--timeout", "5"], ["--run", "true", "--timeout", "-1"], ["--run", "true", "--timeout", "soon"]] {
            let result = try FlowLogProcess.run(["bisect", "--file", coupon, "--stream", "session-4711"] + extra)
            #expect(result.status == 64, "\(extra)")
        }
    }
}
