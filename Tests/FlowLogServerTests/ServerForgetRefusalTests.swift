#if Network
    import FlowLogMemory
    @testable import FlowLogServer
    import FlowLogTesting
    import Foundation
    import HTTPTypes
    import Hummingbird
    import HummingbirdTesting
    import NIOCore
    import Testing

    /// `DELETE /streams/{stream}` where the log cannot forget: a log below log schema 3 is told to run
    /// `flowlog upgrade` (409), a log without the capability (PostgreSQL, for now) says so (501), and
    /// both leave the stream as it was. A bad stream name is 400, as on every stream route.
    @Suite("serve: forgetting refused")
    struct ServerForgetRefusalTests {
        @Test func anOldLogNamesFlowlogUpgrade() async throws {
            let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs/schema-1/data.mdb")
            try await ServedInProcess.test(prepare: { db in
                try FileManager.default.createDirectory(atPath: db, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: fixture.path, toPath: db + "/data.mdb")
            }) { server in
                let before = try await server.get("/streams/demo")
                #expect(before.status == 200)
                let refused = try await server.request("DELETE", "/streams/demo")
                #expect(refused.status == 409, "\(refused.text)")
                #expect(refused.errorCode == "upgradeRequired")
                #expect(refused.text.contains("flowlog upgrade"), "\(refused.text)")
                #expect(try await server.get("/streams/demo").text == before.text, "nothing was changed")
                // Even an unknown stream gets 409 there: the log's schema is checked first, as `flowlog forget` checks it.
                #expect(try await server.request("DELETE", "/streams/nope").status == 409)
                #expect(try await server.request("DELETE", "/streams/not%20an%20id").status == 400)
            }
        }

        @Test func aLogThatCannotForgetSaysSo() async throws {
            // A wrapper of a log that passes on the contract alone: its capabilities hold no `forgetting`.
            let log = ForwardingEventLog()
            #expect(log.capabilities.forgetting == nil)
            let options = FlowLogHTTPServer.Options(host: "127.0.0.1", port: 0, tokens: nil) { _ in }
            var parts = try FlowLogHTTPServer.Parts(log: log, options: options, logger: FlowLogHTTPServer.logger { _ in })
            parts.application.addServices(parts.logThreads)
            try await parts.application.test(.router) { client in
                let command = #"{"type":"app.launched","stream":"s","hasOnboarded":false}"#
                let posted = try await client.executeRequest(
                    uri: "/commands", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: command))
                #expect(posted.status == .ok)
                let refused = try await client.executeRequest(uri: "/streams/s", method: .delete, headers: [:], body: nil)
                #expect(refused.status == .notImplemented)
                let body = HTTPResult(status: Int(refused.status.code), headers: [], body: Array(buffer: refused.body))
                #expect(body.errorCode == "forgettingUnsupported", "\(body.text)")
                #expect(body.text.contains("PostgreSQL"))
                #expect(try await client.executeRequest(uri: "/streams/s", method: .get, headers: [:], body: nil).status == .ok)
            }
        }
    }
#endif
