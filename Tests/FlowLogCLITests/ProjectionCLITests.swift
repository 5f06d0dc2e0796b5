import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogLMDB
import FlowLogProjections
import FlowLogTesting
import Foundation
import Testing

@Suite("projections from the command line")
struct ProjectionCLITests {
    @Test func theDemoLeavesEveryProjectorCurrentWithCallsAndOrders() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let demo = try FlowLogProcess.run(["demo"] + db)
        #expect(demo.stdout.contains(#"tracker segment: {"type":"track","event":"Order Completed""#))
        #expect(demo.stdout.contains(#"view: "Welcome" [Sign up] [Log in]"#))
        let status = try FlowLogProcess.run(["projections", "status", "--format", "json"] + db)
        #expect(status.stdoutLines.count == 3)
        #expect(status.stdoutLines.allSatisfy { $0.contains(#""checkpoint":17,"lag":0,"failure":null"#) })
        let segment = try String(contentsOfFile: folder.child("log-tracker/segment.ndjson"), encoding: .utf8)
        // 17 events, one message each, and a screen call more after the launch and the sign-up.
        #expect(segment.split(separator: "\n").count == 19)
        let ga4 = try String(contentsOfFile: folder.child("log-tracker/ga4.ndjson"), encoding: .utf8)
        #expect(ga4.split(separator: "\n").count == 18)
        let orders = try FlowLogProcess.run(["orders", "--format", "json"] + db)
        #expect(orders.stdoutLines == [#"{"position":15,"stream":"demo-1","orderId":"order-1","total":4702,"itemCount":5}"#])
        let view = try JSONParser.parse(try FlowLogProcess.run(["view", "--stream", "demo-1", "--at", "12", "--format", "json"] + db).stdout)
        #expect(view["cart"]?["checkoutButtonTitle"] == .string("Paying…"))
        #expect(view["cart"]?["isCheckoutEnabled"] == .bool(false))
    }

    @Test func aKilledProjectionResumesToReadModelsThatEqualAFullReplay() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        var rng = SplitMix64(seed: 31)
        let generator = RandomCommands()
        let commands = (0..<40_000).map { index in
            WireCommand.encode(CommandEnvelope(stream: "s\(index % 60)", command: generator.command(using: &rng)))
        }
        _ = try FlowLogProcess.run(["send"] + db, stdin: commands.joined(separator: "\n") + "\n")
        for attempt in 0..<3 {
            let process = Process()
            process.executableURL = FlowLogProcess.executable
            process.arguments = ["projections", "run"] + db
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: 0.02 + 0.03 * Double(attempt))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let finished = try FlowLogProcess.run(["projections", "run"] + db)
        #expect(finished.status == 0, "\(finished.stderr)")
        let log = try LMDBEventLog(path: folder.child("log"), access: .readOnly)
        let storage = StorageProjector(store: log)
        for (stream, _) in try log.streams() {
            let stored = try storage.currentState(of: stream)
            let replayed = try log.replayedState(ofStream: stream)
            #expect(stored?.state == replayed.state && stored?.version == replayed.version, "stream \(stream)")
        }
        // The trackers, killed as well, delivered every message at least once: none is missing.
        for service in ["segment", "ga4"] {
            let lines = try String(contentsOfFile: folder.child("log-tracker/\(service).ndjson"), encoding: .utf8).split(separator: "\n")
            let delivered = Set(
                try lines.map { line -> String in
                    let value = try JSONParser.parse(String(line))
                    let id =
                        service == "segment"
                        ? value["messageId"]
                        : value["events"].flatMap { if case .array(let events) = $0 { events.first?["timestamp_micros"] } else { nil } }
                    switch id {
                    case .string(let text)?: return text
                    case .integer(let number)?: return String(number)
                    default: return ""
                    }
                })
            // Segment: one message id per event at least (the event id); GA4: every event's time.
            let expected = try log.events().map { service == "segment" ? $0.eventId.description : String($0.timestamp.microseconds) }
            #expect(Set(expected).isSubset(of: delivered), "\(service)")
        }
    }
}
