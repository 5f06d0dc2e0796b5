import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// Tests/collectors/vendor_collector.py on a loopback port: Segment's and GA4's published rules,
/// enforced, with faults on demand. Stopped when the test ends.
private final class VendorCollector {
    let process: Process
    let port: Int
    let folder: TemporaryDirectory

    init(_ folder: TemporaryDirectory, arguments: [String] = []) throws {
        self.folder = folder
        let script = FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("Tests/collectors/vendor_collector.py").path
        (process, port) = try PortPrintingServer.start(
            [
                "python3", script, "--segment-write-key", "KEY", "--ga4-measurement-id", "G-TEST",
                "--ga4-api-secret", "SECRET", "--record", folder.child("record.ndjson"),
            ] + arguments)
        try "KEY\n".write(toFile: folder.child("segment.key"), atomically: true, encoding: .utf8)
        try "WRONG\n".write(toFile: folder.child("wrong.key"), atomically: true, encoding: .utf8)
        try "SECRET\n".write(toFile: folder.child("ga4.secret"), atomically: true, encoding: .utf8)
    }

    /// The options that point both trackers at this collector, with the right credentials.
    func trackers(segmentKey: String = "segment.key") -> [String] {
        [
            "--segment-url", "http://127.0.0.1:\(port)/v1/batch", "--write-key-file", folder.child(segmentKey),
            "--ga4-url", "http://127.0.0.1:\(port)/mp/collect", "--ga4-measurement-id", "G-TEST", "--ga4-api-secret-file", folder.child("ga4.secret"),
        ]
    }

    /// GET /_stats or POST /_control, through curl (the tests speak no HTTP of their own).
    func call(_ path: String, json: String? = nil) throws -> JSONValue {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-s", "http://127.0.0.1:\(port)\(path)"] + (json.map { ["-H", "Content-Type: application/json", "-d", $0] } ?? [])
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return try JSONParser.parse(String(decoding: data, as: UTF8.self))
    }

    func stats() throws -> JSONValue { try call("/_stats") }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

private func count(_ value: JSONValue?) -> Int { if case .integer(let n)? = value { n } else { -1 } }

/// The demo's session, appended and not projected yet (`flowlog demo` would project it to files):
/// 17 events, and exit status 1 for the one command the rules refuse.
private func sendDemoSession(_ db: [String]) throws -> Bool {
    try FlowLogProcess.run(["send", FlowLogProcess.fixtures.appendingPathComponent("demo.ndjson").path] + db).status == 1
}

@Suite("trackers against a collector that enforces the vendors' rules", .serialized)
struct VendorCollectorCLITests {
    @Test func theDemoSessionPassesBothVendorsWithNoWarningAndGA4sValidationServerFindsNothing() throws {
        let folder = TemporaryDirectory()
        let collector = try VendorCollector(folder)
        let db = ["--db", folder.child("log")]
        let demo = try FlowLogProcess.run(["demo"] + collector.trackers() + db)
        #expect(demo.status == 0, "\(demo.stderr)")
        let stats = try collector.stats()
        #expect(count(stats["segment"]?["messages_accepted"]) == 19)
        for counter in ["messages_dropped", "duplicates", "warnings", "unauthorized", "bad_requests"] {
            #expect(count(stats["segment"]?[counter]) == 0, "segment \(counter)")
        }
        #expect(count(stats["ga4"]?["events"]) == 18)
        for counter in ["events_with_problems", "validation_messages", "request_problems", "duplicate_transactions"] {
            #expect(count(stats["ga4"]?[counter]) == 0, "ga4 \(counter)")
        }
        let validated = try FlowLogProcess.run(["projections", "run", "--validate"] + collector.trackers() + db)
        #expect(validated.status == 0, "\(validated.stderr)")
        #expect(validated.stdout == "tracker.ga4: 18 GA4 events validated, 0 validation messages\n")
        // Credentials travel as the vendors want them, and never on a command line or in the output.
        let record = try String(contentsOfFile: folder.child("record.ndjson"), encoding: .utf8)
        #expect(!record.contains("\"api_secret\": \"SECRET\"") && !demo.stdout.contains("SECRET") && !demo.stdout.contains("KEY"))
    }

    @Test func segmentRequestsHoldNoMoreThanTheConfiguredCountAndGA4OnesNoMoreThan25() throws {
        let folder = TemporaryDirectory()
        let collector = try VendorCollector(folder)
        let db = ["--db", folder.child("log")]
        let many = (0..<60).map { #"{"type":"cart.addProduct","stream":"big","productId":"p\#($0)","unitPrice":100,"quantity":1}"# }
        #expect(try FlowLogProcess.run(["send"] + db, stdin: many.joined(separator: "\n") + "\n").status == 0)
        let run = try FlowLogProcess.run(["projections", "run", "--batch-size", "7"] + collector.trackers() + db)
        #expect(run.status == 0, "\(run.stderr)")
        var sizes: [String: [Int]] = [:]
        for line in try String(contentsOfFile: folder.child("record.ndjson"), encoding: .utf8).split(separator: "\n") {
            let entry = try JSONParser.parse(String(line))
            guard case .string(let vendor)? = entry["vendor"] else { continue }
            let list = vendor == "segment" ? entry["body"]?["batch"] : entry["body"]?["events"]
            if case .array(let items)? = list { sizes[vendor, default: []].append(items.count) }
        }
        #expect(sizes["segment"] == [7, 7, 7, 7, 7, 7, 7, 7, 4], "\(sizes)")
        #expect(sizes["ga4"] == [25, 25, 10], "\(sizes)")
        let stats = try collector.stats()
        #expect(count(stats["segment"]?["messages_accepted"]) == 60 && count(stats["segment"]?["warnings"]) == 0)
        #expect(count(stats["ga4"]?["events"]) == 60 && count(stats["ga4"]?["events_with_problems"]) == 0)
    }

    @Test func aCollectorDownForAWhileLosesNothingAndDuplicatesNothingAcknowledged() throws {
        let folder = TemporaryDirectory()
        // The first six vendor requests: two connection resets, two 429s with Retry-After: 1, two 500s.
        let collector = try VendorCollector(folder, arguments: ["--reset", "2", "--throttle", "2", "--fail", "2"])
        let db = ["--db", folder.child("log")]
        #expect(try sendDemoSession(db))
        let started = Date()
        let first = try FlowLogProcess.run(["projections", "run"] + collector.trackers() + db)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Date().timeIntervalSince(started) >= 1, "Retry-After: 1 was honoured")
        // Then down for good, past a short deadline: the trackers stop where they were.
        _ = try collector.call("/_control", json: #"{"fail":1000}"#)
        let more = (0..<30).map { #"{"type":"cart.addProduct","stream":"later","productId":"p\#($0)","unitPrice":100,"quantity":1}"# }
        #expect(try FlowLogProcess.run(["send"] + db, stdin: more.joined(separator: "\n") + "\n").status == 0)
        let down = try FlowLogProcess.run(["projections", "run", "--delivery-deadline", "2"] + collector.trackers() + db)
        #expect(down.status == 74, "\(down.stderr)")
        #expect(down.stderr.contains("tracker.segment") && down.stderr.contains("tracker.ga4") && down.stderr.contains("HTTP 500"), "\(down.stderr)")
        let status = try FlowLogProcess.run(["projections", "status", "--format", "json"] + db)
        #expect(status.stdoutLines.filter { $0.contains(#""lag":30"#) }.count == 2, "\(status.stdout)")
        // Back up: everything arrives, once.
        _ = try collector.call("/_control", json: #"{"fail":0}"#)
        let back = try FlowLogProcess.run(["projections", "run"] + collector.trackers() + db)
        #expect(back.status == 0, "\(back.stderr)")
        let stats = try collector.stats()
        #expect(count(stats["segment"]?["messages_accepted"]) == 19 + 30)
        #expect(count(stats["segment"]?["duplicates"]) == 0)
        #expect(count(stats["ga4"]?["events"]) == 18 + 30, "GA4 got every event once (its 5xx answers were not processed)")
        let after = try FlowLogProcess.run(["projections", "status"] + db)
        #expect(after.stdout.contains("retried"), "\(after.stdout)")
        #expect(!after.stdout.contains("lag 30"))
    }

    @Test func aTrackerKilledMidDeliveryLosesNothingAndSegmentDeduplicatesWhatWasInFlight() throws {
        let folder = TemporaryDirectory()
        // Every answer takes 0.3 s: the process is killed with requests in flight.
        let collector = try VendorCollector(folder, arguments: ["--slow", "0.3"])
        let db = ["--db", folder.child("log")]
        #expect(try sendDemoSession(db))
        for wait in [0.5, 0.9] {
            let process = Process()
            process.executableURL = FlowLogProcess.executable
            process.arguments = ["projections", "run", "--batch-size", "2"] + collector.trackers() + db
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: wait)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let finished = try FlowLogProcess.run(["projections", "run", "--batch-size", "2"] + collector.trackers() + db)
        #expect(finished.status == 0, "\(finished.stderr)")
        let stats = try collector.stats()
        #expect(count(stats["segment"]?["messages_accepted"]) == 19, "every message, once: a resent one is a duplicate Segment drops")
        #expect(count(stats["ga4"]?["events"]) >= 18, "no GA4 event is lost")
        // GA4 cannot deduplicate: at most the request in flight at each kill (18 events) comes again.
        #expect(count(stats["ga4"]?["events"]) <= 18 * 3)
    }

    @Test func aRefusedWriteKeyDeadLettersTheMessagesUntilTheyAreReplayedWithTheRightOne() throws {
        let folder = TemporaryDirectory()
        let collector = try VendorCollector(folder)
        let db = ["--db", folder.child("log")]
        #expect(try sendDemoSession(db))
        let refused = try FlowLogProcess.run(["projections", "run"] + collector.trackers(segmentKey: "wrong.key") + db)
        #expect(refused.status == 0, "delivery goes on past a 401: \(refused.stderr)")
        let letters = try String(contentsOfFile: folder.child("log-tracker/segment.dead-letters.ndjson"), encoding: .utf8).split(separator: "\n")
        #expect(letters.count == 19)
        let letter = try JSONParser.parse(String(letters[0]))
        #expect(letter["status"] == .integer(401))
        #expect(letter["message"]?["type"] != nil)
        let status = try FlowLogProcess.run(["projections", "status"] + db)
        #expect(status.stdout.contains("dead-lettered 19; last error: HTTP 401"), "\(status.stdout)")
        #expect(!status.stdout.contains("WRONG"), "the key is never shown")
        let replayed = try FlowLogProcess.run(["projections", "replay-dead-letters", "segment"] + collector.trackers() + db)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout == "tracker.segment: replayed 19 dead letters: 19 delivered, 0 dead-lettered again\n")
        #expect(count(try collector.stats()["segment"]?["messages_accepted"]) == 19)
        #expect(!FileManager.default.fileExists(atPath: folder.child("log-tracker/segment.dead-letters.ndjson")))
    }

    @Test func oneTrackerDownNeverStopsAnother() throws {
        let folder = TemporaryDirectory()
        let collector = try VendorCollector(folder)
        let db = ["--db", folder.child("log")]
        #expect(try sendDemoSession(db))
        // Segment at port 1, where nothing listens: every attempt is refused.
        var trackers = collector.trackers()
        trackers[1] = "http://127.0.0.1:1/v1/batch"
        let run = try FlowLogProcess.run(["projections", "run", "--delivery-deadline", "3"] + trackers + db)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stdout.contains("tracker.ga4: projected 17 events, checkpoint 17"), "\(run.stdout)")
        #expect(run.stderr.contains("tracker.segment") && !run.stderr.contains("tracker.ga4:"), "\(run.stderr)")
        #expect(count(try collector.stats()["ga4"]?["events"]) == 18)
        let status = try FlowLogProcess.run(["projections", "status", "--format", "json"] + db)
        #expect(
            status.stdoutLines.contains { $0.contains(#""name":"tracker.segment","checkpoint":0,"lag":17"#) && $0.lowercased().contains("connect") },
            "\(status.stdout)")
    }
}
