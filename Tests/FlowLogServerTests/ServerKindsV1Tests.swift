#if Network
    import FlowLogBasics
    import FlowLogTesting
    import Foundation
    import Testing

    /// `flowlog serve` on the log and the export the build before event versions wrote: its API, the
    /// scratch sessions the inspector opens from a dropped export, and the event stream.
    @Suite("serve on logs written before event evolution")
    struct ServerKindsV1Tests {
        /// `Fixtures/logs/kinds-v1` (FlowLogCLITests' KindsV1FixtureTests describes it).
        private static func fixture(_ name: String) -> String {
            FlowLogProcess.fixtures.appendingPathComponent("logs/kinds-v1").appendingPathComponent(name).path
        }

        /// As KindsV1FixtureTests runs the command line: it must exit 0 with no word of damage.
        private static func run(_ arguments: [String]) throws -> FlowLogProcess.Result {
            let result = try FlowLogProcess.run(arguments)
            #expect(result.status == 0, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
            #expect(!result.stderr.lowercased().contains("damaged"), "\(arguments): \(result.stderr)")
            return result
        }

        @Test func theAPIAndADroppedOldExportAnswerAsTheCommandLineDoes() async throws {
            try await ServedInProcess.test(prepare: { db in
                try FileManager.default.copyItem(atPath: Self.fixture("log"), toPath: db)
            }) { server in
                let cli = try Self.run(["state", "--stream", "demo", "--format", "json", "--db", server.db]).stdout
                let state = try await server.get("/streams/demo")
                #expect(state.status == 200, "\(state.text)")
                #expect(state.json == (try JSONParser.parse(cli)))
                let events = try await server.get("/streams/extra/events")
                #expect(
                    events.status == 200 && events.text.contains(#""currency":"USD""#) && events.text.contains(#""eventVersion":2"#), "\(events.text)"
                )
                let old = try String(contentsOfFile: Self.fixture("export.ndjson"), encoding: .utf8)
                let session = try await server.postNDJSON("/sessions", old)
                #expect(session.status == 201, "\(session.text)")
                guard case .string(let id)? = session.json["session"] else {
                    Issue.record("\(session.text)")
                    return
                }
                #expect(try await server.get("/sessions/\(id)/streams/demo").json == (try JSONParser.parse(cli)))
                let bisect = try await server.get("/sessions/\(id)/streams/demo/bisect?invariant=all")
                #expect(bisect.status == 200, "\(bisect.text)")
            }
        }
    }
#endif
