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

    /// The storage projector's lag in events, as `serve` reads it from the log's checkpoints.
    private static func storageLag(_ server: ServedLog) throws -> Double? {
        let prefix = #"flowlog_projector_lag_events{projector="storage"} "#
        return try server.get("/metrics").text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    /// Polls `serve`'s `/metrics` until the storage projector's lag is `events`; returns the last reading.
    private static func waitForLag(_ events: Double, _ server: ServedLog) throws -> Double? {
        let deadline = Date().addingTimeInterval(20)
        var lag = try storageLag(server)
        while lag != events, Date() < deadline {
            usleep(50_000)
            lag = try storageLag(server)
        }
        return lag
    }

    @Test func theLagGrowsWhileTheRunnerInAnotherProcessIsStoppedAndFallsWhenItRunsAgain() throws {
        let scratch = TemporaryDirectory()
        let server = try ServedLog()
        let launch = #"{"type":"app.launched","hasOnboarded":false,"stream":"s-N"}"#
        func post(_ count: Int, from first: Int) throws {
            for n in first..<(first + count) {
                #expect(try server.post("/commands", json: launch.replacingOccurrences(of: "s-N", with: "s-\(n)")).status == 200)
            }
        }
        func runner() throws -> FlowLogProcess.Started {
            try FlowLogProcess.start(["projections", "run", "--follow", "--db", server.db, "--tracker-dir", scratch.child("trackers")])
        }
        try post(3, from: 0)
        #expect(try Self.waitForLag(3, server) == 3, "never run: the whole log")
        var running = try runner()
        #expect(try Self.waitForLag(0, server) == 0, "caught up")
        running.kill()
        try post(4, from: 3)
        #expect(try Self.waitForLag(4, server) == 4, "stopped: the events since")
        running = try runner()
        #expect(try Self.waitForLag(0, server) == 0, "started again: caught up")
        running.kill()
    }
}

/// `projections run --follow --metrics-listen`: a runner without `serve` has the projectors' part of
/// `/metrics` of its own, read again as it catches up.
@Suite("projections run: its own metrics", .serialized)
struct RunnerMetricsCLITests {
    private static func value(_ metric: String, _ projector: String, in text: String) -> Double? {
        let prefix = "\(metric){projector=\"\(projector)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    @Test func aFollowingRunnerServesItsLagAndItMovesAsTheRunnerCatchesUp() throws {
        let scratch = TemporaryDirectory()
        let runner = try ServedLog(
            arguments: ["--tracker-dir", scratch.child("trackers")],
            command: ["projections", "run", "--follow", "--metrics-listen", "127.0.0.1:0"],
            announcement: "metrics at http://127.0.0.1:",
            prepare: { path in
                let demo = try FlowLogProcess.run(["demo", "--db", path])
                #expect(demo.status == 0, "\(demo.stderr)")
            })
        defer { runner.stop() }
        // The runner caught up with the demo's events, then a command arrives and it takes that too.
        let sent = try FlowLogProcess.run(
            ["send", "--db", runner.db], stdin: #"{"type":"app.launched","hasOnboarded":false,"stream":"later"}"# + "\n")
        #expect(sent.status == 0, "\(sent.stderr)")
        let positions = try #require(sent.stdout.range(of: #""positions":["#), "\(sent.stdout)")
        let last = try #require(Double(sent.stdout[positions.upperBound...].prefix { $0.isNumber }))
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            text = try runner.get("/metrics").text
            if ["storage", "tracker.segment", "tracker.ga4"].allSatisfy({ Self.value("flowlog_projector_checkpoint", $0, in: text) == last }) {
                break
            }
            usleep(50_000)
        }
        for projector in ["storage", "tracker.segment", "tracker.ga4"] {
            #expect(Self.value("flowlog_projector_checkpoint", projector, in: text) == last, "\(projector): \(text)")
            #expect(Self.value("flowlog_projector_lag_events", projector, in: text) == 0, "\(projector)")
        }
        #expect(text.contains("flowlog_head_position \(Int(last))"), "\(text)")
        #expect(!text.contains("flowlog_http_requests"), "a runner answers no commands")
        #expect(runner.stop() == 0)
    }

    @Test func theOptionAsksForFollowAndAnAddress() throws {
        let folder = TemporaryDirectory()
        let once = try FlowLogProcess.run(["projections", "run", "--metrics-listen", "127.0.0.1:0", "--db", folder.child("log")])
        #expect(once.status == 64 && once.stderr.contains("--follow"), "\(once.stderr)")
        let bad = try FlowLogProcess.run(["projections", "run", "--follow", "--metrics-listen", "9464", "--db", folder.child("log")])
        #expect(bad.status == 64 && bad.stderr.contains("HOST:PORT"), "\(bad.stderr)")
    }
}
