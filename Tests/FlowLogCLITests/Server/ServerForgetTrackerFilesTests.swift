import FlowLogTesting
import Foundation
import Testing

/// `flowlog serve` forgets as `flowlog forget` does outside the log too: `DELETE /streams/{stream}`
/// takes the stream's lines out of the trackers' files beside the log.
@Suite("serve: forgetting reaches the trackers' files", .serialized)
struct ServerForgetTrackerFilesTests {
    @Test func deleteTakesTheStreamsLinesOutOfTheTrackersFiles() throws {
        var db = ""
        let server = try ServedLog(prepare: { path in
            db = path
            for stream in ["gone", "kept"] {
                let demo = try FlowLogProcess.run(["demo", "--db", path, "--stream", stream])
                #expect(demo.status == 0, "\(demo.stderr)")
            }
        })
        let trackers = db + "-tracker"
        let before = try String(contentsOfFile: trackers + "/segment.ndjson", encoding: .utf8)
        #expect(before.contains(#""anonymousId":"gone""#) && before.contains(#""anonymousId":"kept""#))
        let forgotten = try server.request("DELETE", "/streams/gone?reason=ticket-7")
        #expect(forgotten.status == 200, "\(forgotten.text)")
        for file in ["segment.ndjson", "ga4.ndjson"] {
            let text = try String(contentsOfFile: trackers + "/" + file, encoding: .utf8)
            #expect(!text.contains(#""gone""#) && text.contains(#""kept""#), "\(file)")
        }
        // The audit trail has the erasure, with its reason.
        let trail = try FlowLogProcess.run(["log", "--stream", "flowlog:erasures", "--format", "json", "--db", db])
        #expect(trail.stdout.contains(#""reason":"ticket-7""#), "\(trail.stdout)\(trail.stderr)")
    }
}
