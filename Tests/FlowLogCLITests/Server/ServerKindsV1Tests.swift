import FlowLog
import FlowLogTesting
import Foundation
import Testing

/// `flowlog serve` on the log and the export the build before event versions wrote: its API, the
/// scratch sessions the inspector opens from a dropped export, and the event stream.
@Suite("serve on logs written before event evolution")
struct ServerKindsV1Tests {
    @Test func theAPIAndADroppedOldExportAnswerAsTheCommandLineDoes() throws {
        let server = try ServedLog { db in
            try FileManager.default.copyItem(atPath: KindsV1FixtureTests.fixture("log"), toPath: db)
        }
        let cli = try KindsV1FixtureTests.run(["state", "--stream", "demo", "--format", "json", "--db", server.db]).stdout
        let state = try server.get("/streams/demo")
        #expect(state.status == 200, "\(state.text)")
        #expect(state.json == (try JSONParser.parse(cli)))
        let events = try server.get("/streams/extra/events")
        #expect(events.status == 200 && events.text.contains(#""currency":"USD""#) && events.text.contains(#""eventVersion":2"#), "\(events.text)")
        let old = try String(contentsOfFile: KindsV1FixtureTests.fixture("export.ndjson"), encoding: .utf8)
        let session = try server.postNDJSON("/sessions", old)
        #expect(session.status == 201, "\(session.text)")
        guard case .string(let id)? = session.json["session"] else { Issue.record("\(session.text)"); return }
        #expect(try server.get("/sessions/\(id)/streams/demo").json == (try JSONParser.parse(cli)))
        let bisect = try server.get("/sessions/\(id)/streams/demo/bisect?invariant=all")
        #expect(bisect.status == 200, "\(bisect.text)")
    }
}
