#if Network
    import FlowLogBasics
    import FlowLogTesting
    import Foundation
    import Testing

    /// `flowlog serve`'s API against docs/openapi.json and against the command line it mirrors:
    /// answers as `send` writes them, exports as `export` writes them, states, versions and bisect.
    /// In process (ServedInProcess): what is checked is the application, not the binary.
    @Suite("serve: the API")
    struct ServerAPITests {
        private let fixtures = FlowLogProcess.fixtures

        @Test func batchesAreAnsweredExactlyAsSendAnswersThem() async throws {
            let cli = TemporaryDirectory()
            for name in ["cart-rules", "envelope", "onboarding"] {
                let db = cli.child(name)
                let input = try String(contentsOf: fixtures.appendingPathComponent("commands/\(name).ndjson"), encoding: .utf8)
                let sent = try FlowLogProcess.run(["send", "--db", db], stdin: input)
                try await ServedInProcess.test { served in
                    let answer = try await served.postNDJSON("/commands", input)
                    #expect(answer.status == 200)
                    #expect(answer.header("Content-Type") == "application/x-ndjson")
                    #expect(answer.text == sent.stdout, "\(name)")
                    let expected = try String(contentsOf: fixtures.appendingPathComponent("commands/\(name).answers.ndjson"), encoding: .utf8)
                    #expect(answer.lines.count == expected.split(separator: "\n").count)
                    // The same events: the states after them agree with the CLI's log.
                    let stream = name == "envelope" ? "s1" : (name == "cart-rules" ? "cart" : "nav")
                    let state = try await served.get("/streams/\(stream)")
                    let cliState = try FlowLogProcess.run(["state", "--stream", stream, "--format", "json", "--db", db])
                    if cliState.status == 0 { #expect(state.text == cliState.stdout, "\(name)") }
                }
            }
            withExtendedLifetime(cli) {}
            try await ServedInProcess.test { server in
                // Blank lines, a byte order mark, \r\n and a last line without a newline, as `send` takes them.
                let odd =
                    "\u{FEFF}{\"type\":\"app.launched\",\"stream\":\"b\",\"hasOnboarded\":false}\r\n\n   \n{\"type\":\"welcome.signUp\",\"stream\":\"b\"}"
                let answers = try await server.postNDJSON("/commands", odd)
                #expect(
                    answers.lines == [
                        #"{"ok":true,"stream":"b","positions":[1],"version":1}"#, #"{"ok":true,"stream":"b","positions":[2],"version":2}"#,
                    ])
                #expect(try await server.postNDJSON("/commands", "").text == "")
            }
        }

        @Test func oneCommandGetsTheStatusOfItsAnswer() async throws {
            try await ServedInProcess.test { server in
                let add = #"{"type":"cart.addProduct","stream":"s1","productId":"p1","name":"Mug","unitPrice":1250,"quantity":2,"id":"c1"}"#
                let first = try await server.post("/commands", json: add)
                #expect(first.status == 200)
                #expect(first.text == #"{"ok":true,"stream":"s1","positions":[1],"version":1}"# + "\n")
                let again = try await server.post("/commands", json: add)
                #expect(again.status == 200)
                #expect(again.text == #"{"ok":true,"stream":"s1","positions":[1],"version":1,"duplicate":true}"# + "\n")
                let cases: [(String, Int, String)] = [
                    (#"{"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":1300,"quantity":1}"#, 422, "priceMismatch"),
                    (#"{"type":"cart.checkout","stream":"s1","expectedVersion":7}"#, 409, "versionConflict"),
                    (
                        #"{"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":1250,"quantity":2,"id":"c1","name":"Other"}"#, 422,
                        "idempotencyConflict"
                    ),
                    (#"{"type":"cart.teleport"}"#, 400, "unknownCommand"),
                    (#"{"type":"cart.addProduct","stream":"s1"}"#, 400, "malformedCommand"),
                    ("not json", 400, "malformedCommand"),
                    ("[1,2]", 400, "malformedCommand"),
                    ("", 400, "malformedCommand"),
                    (#"{"type":"cart.addProduct","stream":"bad stream","productId":"p","unitPrice":1,"quantity":1}"#, 422, "invalidIdentifier"),
                ]
                for (body, status, code) in cases {
                    let answer = try await server.post("/commands", json: body)
                    #expect(answer.status == status, "\(body): \(answer.text)")
                    guard case .string(let found)? = answer.json["error"]?["code"] else {
                        Issue.record("\(body): \(answer.text)")
                        continue
                    }
                    #expect(found == code, "\(body)")
                    #expect(answer.json["ok"] == .bool(false))
                }
                // Bad UTF-8 inside a string is malformed, and nothing is appended.
                let badUTF8 =
                    Array(#"{"type":"cart.addProduct","stream":"s1","productId":"p9","name":""#.utf8) + [0xC3, 0x28]
                    + Array(#"","unitPrice":1,"quantity":1}"#.utf8)
                let bad = try await server.request("POST", "/commands", headers: ["Content-Type": "application/json"], body: badUTF8)
                #expect(bad.status == 400)
                #expect(bad.text.contains("malformedCommand"))
                #expect(try await server.headPosition() == 1)
            }
        }

        @Test func wrongMediaTypesAndOversizedBodiesAreRefusedWholeAndAppendNothing() async throws {
            try await ServedInProcess.test { server in
                let command = #"{"type":"app.launched","stream":"s","hasOnboarded":false}"#
                for type in ["text/plain", "application/xml", "multipart/form-data; boundary=x"] {
                    let answer = try await server.request("POST", "/commands", headers: ["Content-Type": type], body: Array(command.utf8))
                    #expect(answer.status == 415, "\(type)")
                    #expect(answer.errorCode == "unsupportedMediaType")
                }
                #expect(try await server.request("POST", "/commands", body: Array(command.utf8)).status == 415)
                #expect(try await server.post("/commands", json: command, headers: ["Content-Type": "application/json; charset=utf-8"]).status == 200)
                let huge = "{\"type\":\"payment.failed\",\"reason\":\"" + String(repeating: "x", count: (1 << 20) + 10) + "\"}"
                let tooLarge = try await server.post("/commands", json: huge)
                #expect(tooLarge.status == 413)
                #expect(tooLarge.errorCode == "payloadTooLarge")
                // A batch over 100,000 lines: 413, and not one of its commands applied.
                let lines = String(repeating: command + "\n", count: 100_001)
                let many = try await server.postNDJSON("/commands", lines)
                #expect(many.status == 413, "\(many.text.prefix(200))")
                #expect(try await server.headPosition() == 1)
                // A batch over 16 MiB.
                let big = String(
                    repeating: "{\"type\":\"payment.failed\",\"reason\":\"" + String(repeating: "y", count: 180) + "\"}\n", count: 90_000)
                #expect(try await server.postNDJSON("/commands", big).status == 413)
                // A line over 1 MiB inside a batch is answered malformedCommand, as `send` answers it; the others go in.
                let mixed = command + "\n" + "{\"pad\":\"" + String(repeating: "z", count: (1 << 20) + 1) + "\"}\n" + command + "\n"
                let answers = try await server.postNDJSON("/commands", mixed)
                #expect(answers.status == 200)
                #expect(answers.lines.count == 3)
                #expect(answers.lines[1].contains("malformedCommand") && answers.lines[1].contains("over the limit"))
                #expect(try await server.headPosition() == 3)
            }
        }

        @Test func readRoutesAnswerAsTheCommandLineDoes() async throws {
            try await ServedInProcess.test(prepare: FlowLogProcess.inspectorLog) { server in
                let streams = try await server.get("/streams")
                #expect(streams.status == 200)
                guard case .array(let list)? = streams.json["streams"] else {
                    Issue.record("\(streams.text)")
                    return
                }
                #expect(list.compactMap { $0["stream"] } == [.string("demo-1"), .string("session-0815"), .string("session-4711")])
                let cliStreams = try FlowLogProcess.run(["streams", "--format", "json", "--db", server.db]).stdoutLines
                #expect(
                    list.map { json in
                        var writer = JSONWriter()
                        writer.value(json)
                        return writer.text
                    } == cliStreams)
                // Paging by cursor, prefix and search.
                let first = try await server.get("/streams?limit=1")
                #expect(first.json["next"] == .string("demo-1"))
                let second = try await server.get("/streams?limit=1&after=demo-1")
                #expect(second.json["streams"].map { "\($0)" }?.contains("session-0815") == true)
                #expect(
                    try await server.get("/streams?prefix=session-").json["streams"].map { if case .array(let a) = $0 { a.count } else { -1 } } == 2)
                #expect(try await server.get("/streams?q=DEMO").text.contains("demo-1"))
                #expect(try await server.get("/streams?limit=0").errorCode == "invalidParameter")
                #expect(try await server.get("/streams?limit=abc").errorCode == "invalidParameter")

                // States, now and at a position, as `state --at` prints them.
                for at in [nil, 0, 5, 20, 35] as [Int?] {
                    let query = at.map { "?at=\($0)" } ?? ""
                    let served = try await server.get("/streams/demo-1\(query)")
                    let cli = try FlowLogProcess.run(
                        ["state", "--stream", "demo-1", "--format", "json", "--db", server.db] + (at.map { ["--at", String($0)] } ?? []))
                    #expect(served.text == cli.stdout, "at \(String(describing: at))")
                }
                let outside = try await server.get("/streams/demo-1?at=36")
                #expect(outside.status == 400 && outside.errorCode == "positionOutOfRange" && outside.text.contains("1 through 35"))
                #expect(try await server.get("/streams/no-such").status == 404)
                #expect(try await server.get("/streams/no-such").errorCode == "streamNotFound")
                #expect(try await server.get("/streams/bad%20name").errorCode == "invalidParameter")
                #expect(try await server.get("/streams/demo-1?at=-1").errorCode == "invalidParameter")

                // Events by page and filter.
                let page = try await server.get("/streams/demo-1/events?limit=5")
                #expect(page.json["nextVersion"] == .integer(6))
                let all = try FlowLogProcess.run(["export", "--stream", "demo-1", "--db", server.db]).stdoutLines
                guard case .array(let events)? = page.json["events"] else {
                    Issue.record("\(page.text)")
                    return
                }
                #expect(
                    events.map { json in
                        var writer = JSONWriter()
                        writer.value(json)
                        return writer.text
                    } == Array(all.prefix(5)))
                let filtered = try await server.get("/streams/session-4711/events?type=cart.productAdded")
                guard case .array(let added)? = filtered.json["events"] else {
                    Issue.record("\(filtered.text)")
                    return
                }
                #expect(added.map { $0["version"] } == [.integer(2), .integer(3), .integer(6)])
                #expect(filtered.json["nextVersion"] == .null)
                #expect(try await server.get("/streams/session-4711/events?actor=system").text.contains(#""version":1,"#))
                #expect(try await server.get("/streams/demo-1/events?type=cart.nothing").errorCode == "invalidParameter")
                #expect(try await server.get("/streams/demo-1/events?fromVersion=99").json["events"] == .array([]))

                // A version: the event, the state after it and the changes, as `replay --format json` gives them.
                let step = try await server.get("/streams/session-4711/versions/5")
                #expect(step.header("Cache-Control")?.contains("immutable") == true)
                let replay = try FlowLogProcess.run([
                    "replay", "--stream", "session-4711", "--from", "5", "--to", "5", "--format", "json", "--db", server.db,
                ])
                let replayed = try JSONParser.parse(replay.stdoutLines[0])
                #expect(step.json["changes"] == replayed["changes"], "\(step.text)\n\(replay.stdout)")
                #expect(step.json["state"]?["cart"]?["total"] == .integer(-2250))
                let initial = try await server.get("/streams/session-4711/versions/0")
                #expect(initial.json["event"] == .null && initial.json["changes"] == .array([]))
                let past = try await server.get("/streams/session-4711/versions/9")
                #expect(past.status == 404 && past.errorCode == "versionNotFound" && past.text.contains("0 through 8"))

                // Bisect and the invariants.
                let found = try await server.get("/streams/session-4711/bisect?invariant=totals-non-negative")
                #expect(found.json["found"] == .bool(true) && found.json["version"] == .integer(5) && found.json["position"] == .integer(5))
                #expect(found.json["reason"] == .string("totals-non-negative: the total is negative (-2250 cents)"))
                let clean = try await server.get("/streams/demo-1/bisect?invariant=all")
                #expect(clean.json["found"] == .bool(false) && clean.json["version"] == .null)
                #expect(try await server.get("/streams/demo-1/bisect?invariant=nope").errorCode == "unknownInvariant")
                #expect(try await server.get("/streams/demo-1/bisect").errorCode == "invalidParameter")
                let invariants = try await server.get("/invariants")
                let cliInvariants = try FlowLogProcess.run(["bisect", "--list-invariants", "--format", "json"]).stdoutLines
                guard case .array(let named)? = invariants.json["invariants"] else {
                    Issue.record("\(invariants.text)")
                    return
                }
                #expect(named.count == cliInvariants.count + 1)
                #expect(named.last?["name"] == .string("all"))
            }
        }

        @Test func exportsAreByteForByteTheCommandLines() async throws {
            try await ServedInProcess.test(prepare: FlowLogProcess.inspectorLog) { server in
                let ndjson = try await server.get("/events")
                #expect(ndjson.status == 200)
                #expect(ndjson.header("Content-Type") == "application/x-ndjson")
                #expect(ndjson.header("Content-Disposition") == "attachment; filename=\"events.ndjson\"")
                #expect(ndjson.text == (try FlowLogProcess.run(["export", "--db", server.db])).stdout)
                let csv = try await server.get("/events", headers: ["Accept": "text/csv"])
                #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
                #expect(csv.text == (try FlowLogProcess.run(["export", "--format", "csv", "--db", server.db])).stdout)
                let selected = try await server.get(
                    "/events?stream=demo-1&stream=session-4711&type=cart.productAdded&fromPosition=3&toPosition=30",
                    headers: ["Accept": "application/json;q=0.5, application/x-ndjson"])
                let cli = try FlowLogProcess.run([
                    "export", "--stream", "demo-1", "--stream", "session-4711", "--type", "cart.productAdded",
                    "--from-position", "3", "--to-position", "30", "--db", server.db,
                ])
                #expect(selected.text == cli.stdout)
                #expect(try await server.get("/events", headers: ["Accept": "*/*"]).text == ndjson.text)
                let refused = try await server.get("/events", headers: ["Accept": "application/xml"])
                #expect(refused.status == 406 && refused.errorCode == "notAcceptable")
                #expect(try await server.get("/events?type=nope").errorCode == "invalidParameter")
                #expect(try await server.get("/events?since=yesterday").errorCode == "invalidParameter")
                #expect(try await server.get("/events?stream=bad%20name").errorCode == "invalidParameter")
            }
        }

        @Test func sessionsReadADroppedExportWithoutTouchingTheLog() async throws {
            try await ServedInProcess.test(prepare: FlowLogProcess.inspectorLog) { server in
                let file = try Array(Data(contentsOf: fixtures.appendingPathComponent("bugs/empty-checkout.ndjson")))
                let created = try await server.request("POST", "/sessions", headers: ["Content-Type": "application/x-ndjson"], body: file)
                #expect(created.status == 201, "\(created.text)")
                guard case .string(let id)? = created.json["session"] else {
                    Issue.record("\(created.text)")
                    return
                }
                #expect(created.header("Location") == "sessions/\(id)")
                #expect(created.json["streams"] == .integer(1) && created.json["events"] == .integer(10))
                #expect(try await server.get("/sessions/\(id)/streams").text.contains("session-1207"))
                let bisect = try await server.get("/sessions/\(id)/streams/session-1207/bisect?invariant=all")
                #expect(bisect.json["version"] == .integer(10), "\(bisect.text)")
                #expect(bisect.json["reason"].map { "\($0)" }?.contains("checkout-not-empty") == true)
                #expect(try await server.get("/sessions/\(id)/streams/session-1207/versions/3").status == 200)
                #expect(try await server.get("/sessions/\(id)/streams/session-1207?at=4").json["version"] == .integer(4))
                #expect(try await server.headPosition() == 35)

                // A one-stream export (positions with gaps) loads; its `at` positions are the file's.
                let demo = try FlowLogProcess.run(["export", "--stream", "demo-1", "--db", server.db]).stdout
                let gapped = try await server.postNDJSON("/sessions", demo)
                #expect(gapped.status == 201, "\(gapped.text)")

                // Not an export: 400 invalidExport naming the line.
                for (text, line) in [
                    ("not json\n", "Line 1"),
                    (demo.split(separator: "\n").prefix(2).joined(separator: "\n") + "\n" + demo.split(separator: "\n")[1] + "\n", "Line 3"),
                    ("", "no events"),
                ] {
                    let refused = try await server.postNDJSON("/sessions", text)
                    #expect(refused.status == 400 && refused.errorCode == "invalidExport" && refused.text.contains(line), "\(refused.text)")
                }
                #expect(try await server.request("POST", "/sessions", headers: ["Content-Type": "text/plain"], body: file).status == 415)
                #expect(try await server.request("DELETE", "/sessions/\(id)").status == 204)
                let gone = try await server.get("/sessions/\(id)/streams")
                #expect(gone.status == 404 && gone.errorCode == "sessionNotFound")
                #expect(try await server.request("DELETE", "/sessions/\(id)").status == 404)
            }
        }

        @Test func operationsTheInspectorAndUnknownRoutes() async throws {
            try await ServedInProcess.test(prepare: FlowLogProcess.inspectorLog) { server in
                let health = try await server.get("/health")
                #expect(health.text == #"{"status":"ok","headPosition":35}"# + "\n")
                _ = try await server.post("/commands", json: #"{"type":"cart.teleport"}"#)
                let metrics = try await server.get("/metrics")
                #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
                for name in [
                    "flowlog_http_requests_total{", "flowlog_http_request_duration_seconds_bucket{", "flowlog_commands_total{outcome=\"rejected\"} 1",
                    "flowlog_command_rejections_total{code=\"unknownCommand\"} 1", "flowlog_append_duration_seconds_bucket",
                    "flowlog_head_position 35",
                    "flowlog_subscribers 0", "flowlog_sessions 0", "route=\"/health\"",
                ] {
                    #expect(metrics.text.contains(name), "\(name)")
                }
                let document = try await server.get("/openapi.json")
                #expect(
                    document.body
                        == Array(
                            try Data(contentsOf: FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("docs/openapi.json"))))
                let root = try await server.get("/")
                #expect(root.status == 302 && root.header("Location") == "inspector/")
                #expect(try await server.get("/inspector").header("Location") == "inspector/")
                let page = try await server.get("/inspector/")
                #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
                #expect(page.header("Content-Security-Policy")?.contains("default-src 'self'") == true)
                #expect(page.header("X-Content-Type-Options") == "nosniff")
                let folder = FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("Sources/FlowLogServer/Resources/inspector")
                for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                    let served = try await server.get("/inspector/\(name)")
                    #expect(
                        served.body == Array(try Data(contentsOf: folder.appendingPathComponent(name))), "\(name): every file of the folder is served"
                    )
                    let type = name.hasSuffix(".js") ? "text/javascript" : name.hasSuffix(".css") ? "text/css" : "text/html"
                    #expect(served.header("Content-Type")?.hasPrefix(type) == true, "\(name)")
                }
                #expect(try await server.get("/inspector/nope.js").status == 404)
                let unknown = try await server.get("/nothing/here")
                #expect(unknown.status == 404 && unknown.errorCode == "notFound")
                let method = try await server.request("PUT", "/streams")
                #expect(method.status == 405 && method.header("Allow") == "GET" && method.errorCode == "methodNotAllowed")
                // Access logs: JSON lines on stderr, the route template, never a query string.
                _ = try await server.get("/streams/demo-1?at=3")
                let logs = server.stderr.split(separator: "\n").filter { $0.contains(#""message":"request""#) }
                #expect(logs.contains { $0.contains(#""route":"/streams/{stream}""#) && $0.contains(#""status":"200""#) })
                #expect(!server.stderr.contains("at=3"))
                // Each line is one JSON object: its members as strings, the time in UTC with microseconds.
                let line = try #require(logs.first { $0.contains(#""route":"/streams/{stream}""#) })
                let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
                #expect(
                    fields["path"] == "/streams/demo-1" && fields["method"] == "GET" && fields["level"] == "info"
                        && fields["label"] == "flowlog.serve")
                #expect(fields["ms"]?.range(of: #"^[0-9]+\.[0-9]{3}$"#, options: .regularExpression) != nil, "\(fields["ms"] ?? "no ms")")
                let time = try #require(fields["time"])
                #expect(
                    time.range(of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$"#, options: .regularExpression) != nil,
                    "\(time)")
                let parser = ISO8601DateFormatter()
                parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                let logged = try #require(parser.date(from: time))
                #expect(abs(logged.timeIntervalSinceNow) < 300, "\(time) is the time of the request")
            }
        }
    }
#endif
