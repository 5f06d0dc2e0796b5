import FlowLogTesting
import Foundation
import Testing

/// `flowlog serve`'s `/metrics` reports what the trackers delivered as their runners recorded it
/// beside their dead letters (`LOG-tracker/NAME.delivery.json`), whichever process ran them.
@Suite("serve: the trackers' deliveries in the metrics", .serialized)
struct ServerTrackerMetricsTests {
    @Test func theMetricsCountWhatTheTrackersJournalsHold() throws {
        var db = ""
        let server = try ServedLog(prepare: { path in
            db = path
            let demo = try FlowLogProcess.run(["demo", "--db", path])
            #expect(demo.status == 0, "\(demo.stderr)")
        })
        // As a runner posting to Segment's endpoint in another process leaves it.
        let journal = db + "-tracker/segment.delivery.json"
        try #"{"delivered":12,"retried":2,"deadLettered":1,"lastError":"HTTP 400"}"#.write(toFile: journal, atomically: true, encoding: .utf8)
        let text = try server.get("/metrics").text
        #expect(text.contains(#"flowlog_tracker_deliveries_total{tracker="segment"} 12"#), "\(text)")
        #expect(text.contains(#"flowlog_tracker_retries_total{tracker="segment"} 2"#))
        #expect(text.contains(#"flowlog_tracker_dead_letters_total{tracker="segment"} 1"#))
        // The demo's GA4 tracker wrote to a file: it posted nothing, and has no counters.
        #expect(!text.contains(#"tracker="ga4""#))
    }
}
