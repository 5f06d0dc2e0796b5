import FlowLog
import FlowLogTesting
import Foundation
import Testing

/// Tracker URLs are checked before anything is written: one FlowLog cannot post to (HTTPS, another
/// scheme, no host, a bad port) is a usage error (64) saying what to give instead.
@Suite("tracker URLs")
struct TrackerURLCLITests {
    @Test(arguments: [
        ["demo", "--segment-url", "https://collector.example/v1/batch"],
        ["demo", "--snake-url", "HTTPS://collector.example/batch"],
        ["demo", "--segment-url", "http://"],
        ["demo", "--segment-url", "ftp://collector.example/batch"],
        ["demo", "--segment-url", "http://collector.example:99999/batch"],
        ["projections", "run", "--segment-url", "https://collector.example/v1/batch"],
        ["projections", "rebuild", "tracker.snake", "--snake-url", "https://collector.example/v1/batch"],
    ])
    func aTrackerURLFlowLogCannotPostToIsRefusedBeforeAnythingIsWritten(arguments: [String]) throws {
        let folder = TemporaryDirectory()
        let result = try FlowLogProcess.run(arguments + ["--db", folder.child("log")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("http://"), "\(result.stderr)")
        if arguments.contains(where: { $0.lowercased().hasPrefix("https") }) {
            #expect(result.stderr.contains("HTTPS is not supported yet"), "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing was written")
    }
}
