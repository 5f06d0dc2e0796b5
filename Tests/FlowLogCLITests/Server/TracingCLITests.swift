import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

#if Network
    /// Spans exported over OTLP/HTTP to a real receiver (Tests/collectors/otlp_receiver.py): the trees
    /// `send`, `serve`, a tracker and `push` make, the settings, and a receiver that refuses or hangs.
    @Suite("traces exported to an OTLP receiver", .serialized)
    struct TracingCLITests {
        private static let demo = FlowLogProcess.fixtures.appendingPathComponent("demo.ndjson").path
        private static let given = (trace: "0af7651916cd43dd8448eb211c80319c", span: "b7ad6b7169203331")

        @Test func sendIsOneTraceItsCommitsUnderTheCommandsRootSpan() throws {
            let receiver = try OTLPReceiver()
            let folder = TemporaryDirectory()
            let sent = try FlowLogProcess.run(["send", Self.demo, "--db", folder.child("log")], environment: receiver.environment())
            #expect(sent.status == 1, "the demo has one command the rules refuse: \(sent.stderr)")
            let spans = try receiver.spans(atLeast: 2)
            let root = try #require(spans.first { $0.name == "flowlog send" })
            #expect(root.parentSpanID.isEmpty && root.resource("service.name") == .string("flowlog"))
            #expect(root.attribute("process.exit.code") == .integer(1))
            #expect(root.statusCode != 2, "a rejected command is an answer, not a failure of the program")
            let commits = spans.filter { $0.name == "flowlog.commit" }
            #expect(!commits.isEmpty && commits.allSatisfy { $0.traceID == root.traceID && $0.parentSpanID == root.spanID })
            let commands = commits.map { span in if case .integer(let n)? = span.attribute("flowlog.commit.commands") { n } else { 0 } }
            #expect(commands.reduce(0, +) == sent.stdoutLines.count, "every answered command in some commit")
            // The demo's 34 events, each record some dozens of bytes, in these commits.
            let bytes = commits.map { span in if case .integer(let n)? = span.attribute("flowlog.commit.bytes") { n } else { 0 } }
            #expect(bytes.reduce(0, +) > 34 * 40 && bytes.reduce(0, +) < 34 * 400, "\(bytes)")
            #expect(spans.filter { $0.name == "flowlog.command" }.isEmpty, "send's commands are counted by their commits, not a span each")
        }

        @Test func aSendLineWhoseMetaCarriesATraceparentHasASpanInThatTrace() throws {
            let receiver = try OTLPReceiver()
            let folder = TemporaryDirectory()
            let lines = [
                #"{"type":"app.launched","stream":"m-1","hasOnboarded":false,"meta":{"traceparent":"00-\#(Self.given.trace)-\#(Self.given.span)-01","screen":"home"}}"#,
                #"{"type":"app.launched","stream":"m-2","hasOnboarded":false}"#,
                #"{"type":"app.launched","stream":"m-3","hasOnboarded":false,"meta":{"traceparent":"not a trace"}}"#,
                #"{"type":"app.launched","stream":"m-4","hasOnboarded":false,"meta":{"traceparent":7}}"#,
            ]
            let sent = try FlowLogProcess.run(
                ["send", "--db", folder.child("log")], stdin: lines.joined(separator: "\n") + "\n", environment: receiver.environment())
            #expect(sent.status == 0 && sent.stdoutLines.count == 4, "\(sent.stdout)\(sent.stderr)")
            let spans = try receiver.spans(atLeast: 3)
            let commands = spans.filter { $0.name == "flowlog.command" }
            #expect(commands.count == 1, "only the line that named a trace has a span of its own")
            let command = try #require(commands.first)
            #expect(command.traceID == Self.given.trace && command.parentSpanID == Self.given.span)
            #expect(command.attribute("flowlog.stream") == .string("m-1") && command.attribute("flowlog.command.outcome") == .string("accepted"))
            let commit = try #require(spans.first { $0.name == "flowlog.commit" })
            #expect(command.links.map(\.spanID) == [commit.spanID])
            #expect(commit.links.contains { $0.traceID == Self.given.trace }, "the commit links to the trace it served")
        }

        @Test func aRequestsTraceparentIsTheParentOfItsRequestItsCommandsAndTheirCommit() throws {
            let receiver = try OTLPReceiver()
            let server = try ServedLog(environment: receiver.environment())
            let traceparent = "00-\(Self.given.trace)-\(Self.given.span)-01"
            let accepted = try server.post(
                "/commands", json: #"{"type":"app.launched","stream":"s-1","hasOnboarded":false}"#, headers: ["traceparent": traceparent])
            #expect(accepted.status == 200, "\(accepted.text)")
            let rejected = try server.post("/commands", json: #"{"type":"cart.checkout","stream":"s-2"}"#, headers: ["traceparent": traceparent])
            guard case .string(let code)? = rejected.json["error"]?["code"] else {
                Issue.record("no error code: \(rejected.text)")
                return
            }
            #expect(server.stop() == 0)
            let spans = try receiver.spans(atLeast: 6)
            let requests = spans.filter { $0.kind == "server" && $0.attribute("http.route") == .string("/commands") }
            #expect(requests.count == 2)
            for request in requests {
                #expect(request.traceID == Self.given.trace && request.parentSpanID == Self.given.span)
                #expect(request.attribute("http.request.method") == .string("POST"))
            }
            let commands = spans.filter { $0.name == "flowlog.command" }
            let launched = try #require(commands.first { $0.attribute("flowlog.stream") == .string("s-1") })
            #expect(requests.contains { $0.spanID == launched.parentSpanID && $0.attribute("http.response.status_code") == .integer(200) })
            #expect(launched.attribute("flowlog.command.kind") == .string("app.launched"))
            #expect(launched.attribute("flowlog.command.outcome") == .string("accepted"))
            let refused = try #require(commands.first { $0.attribute("flowlog.stream") == .string("s-2") })
            #expect(refused.attribute("flowlog.command.outcome") == .string("rejected"))
            #expect(refused.attribute("flowlog.command.answer_code") == .string(code))
            let commit = try #require(spans.first { $0.name == "flowlog.commit" && launched.links.map(\.spanID).contains($0.spanID) })
            #expect(commit.traceID == Self.given.trace && commit.attribute("flowlog.commit.events") == .integer(1))
            guard case .integer(let bytes)? = commit.attribute("flowlog.commit.bytes") else {
                Issue.record("the commit has no bytes")
                return
            }
            #expect((40...400).contains(bytes), "one record with its trace context: \(bytes) bytes")
            // The access log names the request's span.
            let line = try #require(server.stderr.split(separator: "\n").first { $0.contains(#""path":"/commands""#) })
            #expect(line.contains(#""trace_id":"\#(Self.given.trace)""#))
            #expect(requests.contains { line.contains(#""span_id":"\#($0.spanID)""#) })
        }

        @Test func aMalformedTraceparentStartsATraceOfItsOwn() throws {
            let receiver = try OTLPReceiver()
            let server = try ServedLog(environment: receiver.environment())
            let hostile = [
                "garbage", "00-\(Self.given.trace)-\(Self.given.span)", "ff-\(Self.given.trace)-\(Self.given.span)-01",
                "00-\(String(repeating: "0", count: 32))-\(Self.given.span)-01", "00-\(Self.given.trace.uppercased())-\(Self.given.span)-01",
                "00-\(Self.given.trace)-\(Self.given.span)-01-" + String(repeating: "x", count: 4_000),
            ]
            for (index, header) in hostile.enumerated() {
                let answer = try server.post(
                    "/commands", json: #"{"type":"app.launched","stream":"h-\#(index)","hasOnboarded":false}"#, headers: ["traceparent": header])
                #expect(answer.status == 200, "\(header.prefix(80)): \(answer.text)")
            }
            #expect(server.stop() == 0)
            let requests = try receiver.spans(atLeast: hostile.count * 3).filter { $0.kind == "server" }
            #expect(requests.count == hostile.count)
            #expect(requests.allSatisfy { $0.traceID.count == 32 && $0.traceID != String(repeating: "0", count: 32) })
            #expect(requests.allSatisfy { $0.traceID != Self.given.trace && $0.parentSpanID.isEmpty }, "none of them is honoured")
        }

        @Test func aTrackersRequestsAreClientSpansUnderTheirProjectorsBatchWithRetriesAsEvents() throws {
            let receiver = try OTLPReceiver()
            let folder = TemporaryDirectory()
            let script = FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("Tests/collectors/vendor_collector.py").path
            let (collector, port) = try PortPrintingServer.start(["python3", script, "--segment-write-key", "KEY", "--fail", "1"])
            defer {
                kill(collector.processIdentifier, SIGKILL)
                collector.waitUntilExit()
            }
            try "KEY\n".write(toFile: folder.child("segment.key"), atomically: true, encoding: .utf8)
            let db = ["--db", folder.child("log")]
            #expect(try FlowLogProcess.run(["send", Self.demo] + db).status == 1)
            let run = try FlowLogProcess.run(
                ["projections", "run", "--segment-url", "http://127.0.0.1:\(port)/v1/batch", "--write-key-file", folder.child("segment.key")] + db,
                environment: receiver.environment())
            #expect(run.status == 0, "\(run.stderr)")
            let spans = try receiver.spans(atLeast: 3)
            let root = try #require(spans.first { $0.name == "flowlog projections run" })
            let posts = spans.filter { $0.kind == "client" && $0.name == "POST" }
            #expect(!posts.isEmpty)
            for post in posts {
                let batch = try #require(spans.first { $0.spanID == post.parentSpanID })
                #expect(batch.name == "flowlog.projector.batch" && batch.parentSpanID == root.spanID && batch.traceID == root.traceID)
                #expect(post.attribute("url.full") == .string("http://127.0.0.1:\(port)/v1/batch"))
                #expect(post.attribute("server.port") == .integer(port))
            }
            // The collector fails the first request (500): its span says so and carries the retry; the
            // request is tried again once the other projectors were served, and delivered.
            #expect(posts.contains { $0.eventNames.contains("retry") && $0.attribute("http.response.status_code") == .integer(500) })
            #expect(posts.contains { $0.attribute("http.response.status_code") == .integer(200) })
        }

        /// One trace from the request to the delivery: the request's context kept with its event, and
        /// the runner's batch span (another process, later) linking back to it.
        @Test func aDeliveryLinksToTheRequestThatWroteItsEvents() throws {
            let receiver = try OTLPReceiver()
            let folder = TemporaryDirectory()
            let (collector, port) = try PortPrintingServer.start([
                "python3", FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("Tests/collectors/vendor_collector.py").path,
                "--segment-write-key", "KEY",
            ])
            defer {
                kill(collector.processIdentifier, SIGKILL)
                collector.waitUntilExit()
            }
            try "KEY\n".write(toFile: folder.child("segment.key"), atomically: true, encoding: .utf8)
            let server = try ServedLog(environment: receiver.environment())
            let answer = try server.post(
                "/commands", json: #"{"type":"app.launched","stream":"s-1","hasOnboarded":false}"#,
                headers: ["traceparent": "00-\(Self.given.trace)-\(Self.given.span)-01"])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(server.stop() == 0)
            let exported = try FlowLogProcess.run(["export", "--db", server.db]).stdout
            #expect(exported.contains(#""traceparent":"00-\#(Self.given.trace)-"#), "the trace id sent comes back on the event: \(exported)")
            let run = try FlowLogProcess.run(
                [
                    "projections", "run", "--segment-url", "http://127.0.0.1:\(port)/v1/batch", "--write-key-file", folder.child("segment.key"),
                    "--db", server.db,
                ],
                environment: receiver.environment())
            #expect(run.status == 0, "\(run.stderr)")
            let spans = try receiver.spans(atLeast: 6)
            let request = try #require(spans.first { $0.kind == "server" && $0.traceID == Self.given.trace })
            let batches = spans.filter { $0.name == "flowlog.projector.batch" }
            #expect(batches.allSatisfy { $0.traceID != Self.given.trace }, "the runner's trace is its own")
            #expect(
                batches.contains { $0.links.contains { $0.traceID == Self.given.trace && $0.spanID == request.spanID } },
                "a batch links to the request's span, whose context the event kept")
        }

        @Test func pushCarriesItsTraceToTheServersRequests() throws {
            let receiver = try OTLPReceiver()
            let folder = TemporaryDirectory()
            let key = folder.child("key")
            try Data(repeating: 0x4B, count: 32).write(to: URL(fileURLWithPath: key))
            let device = folder.child("device")
            #expect(try FlowLogProcess.run(["send", Self.demo, "--db", device]).status == 1)
            let server = try ServedLog(arguments: ["--key-file", key], environment: receiver.environment())
            let pushed = try FlowLogProcess.run(["push", "--db", device, "--to", server.base], environment: receiver.environment())
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(server.stop() == 0)
            let spans = try receiver.spans(atLeast: 4)
            let root = try #require(spans.first { $0.name == "flowlog push" })
            let clients = spans.filter { $0.kind == "client" && $0.traceID == root.traceID }
            let served = spans.filter { $0.kind == "server" }
            #expect(!clients.isEmpty && !served.isEmpty)
            for request in served {
                #expect(clients.contains { $0.spanID == request.parentSpanID }, "\(request.name) has push's request as its parent")
            }
            #expect(spans.contains { $0.name == "flowlog.ingest" && $0.traceID == root.traceID })
        }

        @Test(arguments: ["refuse", "hang"])
        func aReceiverThatRefusesOrHangsNeitherFailsNorHoldsUpACommand(mode: String) throws {
            let receiver = try OTLPReceiver(mode: mode)
            let folder = TemporaryDirectory()
            let quietStart = Date()
            let quiet = try FlowLogProcess.run(["send", Self.demo, "--db", folder.child("quiet")])
            let quietSeconds = Date().timeIntervalSince(quietStart)
            let started = Date()
            let traced = try FlowLogProcess.run(["send", Self.demo, "--db", folder.child("traced")], environment: receiver.environment())
            let seconds = Date().timeIntervalSince(started)
            #expect(traced.status == quiet.status && traced.stdoutLines.count == quiet.stdoutLines.count)
            #expect(seconds < quietSeconds + 2, "a command waits at most a second for its spans: \(seconds) s against \(quietSeconds) s")
            #expect(try receiver.requests() >= 1, "the spans were offered")
            let said = mode == "refuse" ? "could not be exported" : "did not take the last spans within a second"
            #expect(traced.stderr.contains(said), "\(traced.stderr)")
        }

        @Test func aFollowingRunnerThatExportsSpansStopsCleanlyOnSIGTERM() throws {
            let receiver = try OTLPReceiver()
            let folder = TemporaryDirectory()
            #expect(try FlowLogProcess.run(["send", Self.demo, "--db", folder.child("log")]).status == 1)
            let runner = try ServedLog(
                db: folder.child("log"), arguments: ["--tracker-dir", folder.child("trackers")],
                command: ["projections", "run", "--follow", "--metrics-listen", "127.0.0.1:0"], announcement: "metrics at http://127.0.0.1:",
                environment: receiver.environment())
            #expect(try runner.get("/metrics").status == 200)
            #expect(runner.stop(SIGTERM) == 0, "stopped between two catch-ups, not killed by the signal: \(runner.stderr)")
            #expect(try receiver.spans(atLeast: 1).contains { $0.name == "flowlog.projector.batch" })
        }

        @Test func spansTheReceiverRefusedAreCountedInMetrics() throws {
            let receiver = try OTLPReceiver(mode: "refuse")
            let server = try ServedLog(environment: receiver.environment())
            #expect(try server.get("/health").status == 200)
            let deadline = Date().addingTimeInterval(10)
            var dropped = 0
            while dropped == 0, Date() < deadline {
                usleep(200_000)
                let text = try server.get("/metrics").text
                let line = text.split(separator: "\n").first { $0.hasPrefix("flowlog_spans_dropped_total ") }
                dropped = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            }
            #expect(dropped >= 1)
        }

        @Test func theStandardSettingsTurnExportingOffOrAreRefusedWithAReason() throws {
            let receiver = try OTLPReceiver()
            let folder = TemporaryDirectory()
            let db = ["--db", folder.child("log")]
            for off in [["OTEL_SDK_DISABLED": "true"], ["OTEL_TRACES_EXPORTER": "none"], ["OTEL_TRACES_SAMPLER": "always_off"]] {
                #expect(try FlowLogProcess.run(["streams"] + db, environment: receiver.environment(off)).status == 66)
            }
            #expect(try receiver.spans().isEmpty)
            for (setting, said) in [
                ("OTEL_TRACES_SAMPLER", "bogus"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"), ("OTEL_TRACES_SAMPLER_ARG", "2"),
                ("OTEL_BSP_MAX_QUEUE_SIZE", "many"),
            ] {
                var environment = receiver.environment([setting: said])
                if setting == "OTEL_TRACES_SAMPLER_ARG" { environment["OTEL_TRACES_SAMPLER"] = "traceidratio" }
                let refused = try FlowLogProcess.run(["streams"] + db, environment: environment)
                #expect(refused.status == 64 && refused.stderr.contains("\(setting)=\(said)"), "\(refused.stderr)")
            }
        }
    }
#endif
