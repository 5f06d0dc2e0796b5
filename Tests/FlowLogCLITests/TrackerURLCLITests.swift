import FlowLogTesting
import Foundation
import Testing

/// Tracker endpoints are checked before anything is written: one FlowLog must not post to (plain
/// http to another machine, another scheme, no host, a bad port, credentials in the URL) is a usage
/// error (64) saying what to give instead; credentials never come from the command line.
@Suite("tracker URLs")
struct TrackerURLCLITests {
    @Test(arguments: [
        (["demo", "--segment-url", "http://collector.example/v1/batch"], "--allow-insecure"),
        (["demo", "--ga4-url", "http://", "--ga4-measurement-id", "G-1"], "names no host"),
        (["demo", "--segment-url", "ftp://collector.example/batch"], "scheme is ftp"),
        (["demo", "--segment-url", "http://127.0.0.1:99999/batch"], "port 99999"),
        (["projections", "run", "--segment-url", "https://KEY@api.segment.io/v1/batch"], "in a file or the environment"),
        (["projections", "run", "--ga4-url", "https://www.google-analytics.com/mp/collect"], "--ga4-measurement-id"),
        (["projections", "run", "--ga4-url", "https://www.google-analytics.com/collect", "--ga4-measurement-id", "G-1"], "/mp/collect"),
        (["projections", "run", "--currency", "usd"], "ISO 4217"),
        (["projections", "run", "--batch-size", "3000"], "2500"),
        (["projections", "rebuild", "tracker.snake"], "tracker.ga4"),
    ])
    func anEndpointFlowLogMustNotPostToIsRefusedBeforeAnythingIsWritten(arguments: [String], says: String) throws {
        let folder = TemporaryDirectory()
        let result = try FlowLogProcess.run(arguments + ["--db", folder.child("log")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(says), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing was written")
    }

    @Test func postingToAVendorWithoutItsCredentialSaysWhereToPutIt() throws {
        let folder = TemporaryDirectory()
        _ = try FlowLogProcess.run(["demo", "--db", folder.child("log")])
        let segment = try FlowLogProcess.run(["projections", "run", "--segment-url", "https://api.segment.io/v1/batch", "--db", folder.child("log")])
        #expect(segment.status == 64)
        #expect(segment.stderr.contains("--write-key-file") && segment.stderr.contains("FLOWLOG_SEGMENT_WRITE_KEY"), "\(segment.stderr)")
        let ga4 = try FlowLogProcess.run([
            "projections", "run", "--ga4-url", "https://www.google-analytics.com/mp/collect", "--ga4-measurement-id", "G-1",
            "--ga4-api-secret-file", folder.child("missing"), "--db", folder.child("log"),
        ])
        #expect(ga4.status == 66, "\(ga4.stderr)")
        #expect(ga4.stderr.contains("--ga4-api-secret-file"), "\(ga4.stderr)")
    }
}
