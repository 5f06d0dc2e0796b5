import FlowLogTesting
import Foundation
import Testing

/// `replay --verify --expected FILE`: a missing file is exit 66, and an expected-state file that
/// covers no event of the log is an error (65), never "all agree".
@Suite("expected-state files")
struct ExpectedStatesCLITests {
    @Test func aMissingExpectedFileIsExit66WithASentence() throws {
        let folder = TemporaryDirectory()
        _ = try FlowLogProcess.run(["demo", "--db", folder.child("log")])
        let result = try FlowLogProcess.run(["replay", "--verify", "--expected", folder.child("nonexistent"), "--db", folder.child("log")])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("flowlog: Cannot read \(folder.child("nonexistent")): No such file or directory"), "\(result.stderr)")
        #expect(!result.stderr.contains("Foundation") && !result.stderr.contains("NSCocoa"), "\(result.stderr)")
    }

    @Test func anExpectedFileThatCoversNoEventIsAnError() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo"] + db)
        try "".write(toFile: folder.child("empty.ndjson"), atomically: true, encoding: .utf8)
        let other = FlowLogProcess.fixtures.appendingPathComponent("bugs/stale-discount.expected.ndjson").path
        for expected in [folder.child("empty.ndjson"), other] {
            let result = try FlowLogProcess.run(["replay", "--verify", "--expected", expected] + db)
            #expect(result.status == 65, "\(expected): \(result.stdout) \(result.stderr)")
            #expect(!result.stdout.contains("all agree"), "\(expected)")
            #expect(result.stderr.contains("cover no event"), "\(expected): \(result.stderr)")
        }
        // The trace of the log itself covers every event, and agrees.
        let trace = try FlowLogProcess.run(["replay", "--trace"] + db)
        try trace.stdout.write(toFile: folder.child("trace.ndjson"), atomically: true, encoding: .utf8)
        let agreed = try FlowLogProcess.run(["replay", "--verify", "--expected", folder.child("trace.ndjson")] + db)
        #expect(agreed.status == 0, "\(agreed.stderr)")
        #expect(agreed.stdout.contains("17 recorded states compared, all agree"))
    }
}
