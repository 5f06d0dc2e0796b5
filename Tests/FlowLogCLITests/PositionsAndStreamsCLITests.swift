import FlowLogTesting
import Foundation
import Testing

/// One rule for the reading commands: a position outside the log is a usage error (64) naming the
/// log's range; a stream the log does not hold is exit 66 with the number of streams it does hold
/// and the command that lists them.
@Suite("positions and streams the log does not hold")
struct PositionsAndStreamsCLITests {
    @Test func aPositionOutsideTheLogIsAUsageErrorNamingTheRange() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo", "--stream", "d"] + db)
        for arguments in [
            ["state", "--stream", "d", "--at", "18"], ["view", "--stream", "d", "--at", "999"],
            ["replay", "--from", "18"], ["replay", "--to", "40"], ["replay", "--stream", "d", "--from", "99"], ["log", "--from", "18"],
        ] {
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.contains("positions 1 through 17"), "\(arguments): \(result.stderr)")
        }
        for arguments in [
            ["state", "--stream", "d", "--at", "17"], ["view", "--stream", "d", "--at", "0"], ["replay", "--from", "17", "--to", "17"],
            ["log", "--from", "17"],
        ] {
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    @Test func anUnknownStreamIsExit66WithTheKnownStreamsAndTheCommandThatListsThem() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo"] + db)
        _ = try FlowLogProcess.run(["demo"] + db)
        for arguments in [
            ["state", "--stream", "nosuch"], ["view", "--stream", "nosuch"], ["replay", "--stream", "nosuch"],
            ["log", "--stream", "nosuch"], ["state", "--stream", "nosuch", "--at", "3"], ["bisect", "--stream", "nosuch", "--invariant", "all"],
            ["log", "--stream", "demo-1", "--stream", "nosuch"],
        ] {
            let result = try FlowLogProcess.run(arguments + db)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.contains("nosuch"), "\(arguments)")
            #expect(result.stderr.contains("2 streams"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("flowlog streams"), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aStreamAFileDoesNotHoldIsExit66Too() throws {
        let file = FlowLogProcess.fixtures.appendingPathComponent("bugs/coupon-over-100.ndjson").path
        let result = try FlowLogProcess.run(["replay", "--file", file, "--stream", "nosuch"])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("2 streams"), "\(result.stderr)")
        let outside = try FlowLogProcess.run(["replay", "--file", file, "--from", "19"])
        #expect(outside.status == 64, "\(outside.stderr)")
        #expect(outside.stderr.contains("positions 1 through 18"), "\(outside.stderr)")
    }
}
