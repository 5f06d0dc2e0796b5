#if Network
import FlowLog
import FlowLogClientNIO
import FlowLogTesting
import Foundation
import Testing

/// FlowLogClient, the client swift-openapi-generator made from docs/openapi.json, over
/// AsyncHTTPClientTransport against `flowlog serve` on loopback: its requests are the ones the
/// server takes, and its typed answers decode what the server sends (200 bodies, the documented
/// errors), so the document and the server agree as a Swift caller sees them.
@Suite("FlowLogClient against flowlog serve")
struct GeneratedClientTests {
    @Test func healthACommandAndAStateAreTypedAnswers() async throws {
        let server = try ServedLog()
        let client = Client(serverURL: URL(string: server.base)!, httpClient: .shared)

        let health = try await client.health().ok.body.json
        #expect(health.headPosition == 0 && health.status == "ok")

        let command = Components.Schemas.Command(
            value1: .init(_type: "cart.addProduct", stream: "cart-1", id: "cmd-1"),
            value2: .AddProductCommand(.init(_type: "cart.addProduct", productId: "p1", unitPrice: 350, quantity: 2, name: "Mug")))
        let accepted = try await client.sendCommands(body: .json(command)).ok.body.json
        #expect(accepted.stream == "cart-1" && accepted.version == 1 && accepted.positions == [1] && accepted.duplicate == nil)
        let again = try await client.sendCommands(body: .json(command)).ok.body.json
        #expect(again.duplicate == true && again.positions == [1], "the same id is acknowledged, not appended")

        let state = try await client.getState(path: .init(stream: "cart-1")).ok.body.json
        #expect(state.stream == "cart-1" && state.version == 1)
        #expect(state.cart.items.map(\.productId) == ["p1"] && state.cart.items.first?.quantity == 2)
        #expect(state.cart.currency == "USD" && state.cart.cartDiscount == nil)

        guard case .notFound(let missing) = try await client.getState(path: .init(stream: "cart-2")) else {
            Issue.record("an unknown stream is not a 404")
            return
        }
        #expect(try missing.body.json.error.code == .streamNotFound)
        #expect(try await client.health().ok.body.json.headPosition == 1)
    }

    /// The sync routes (`flowlog push`'s): a stream's tip, recorded events taken once, a gap refused.
    @Test func ingestAndTipAreTypedAnswers() async throws {
        let folder = TemporaryDirectory()
        let device = folder.child("device")
        try PushPullCLITests.deviceLog(device, streams: 1, commands: 4)
        let lines = try FlowLogProcess.run(["export", "--db", device]).stdoutLines
        #expect(lines.count == 4)
        let server = try ServedLog(arguments: ["--key-file", try PushPullCLITests.keyFile(in: folder)])
        let client = Client(serverURL: URL(string: server.base)!, httpClient: .shared)
        let stream = Components.Parameters.Stream("phone-0")

        let empty = try await client.getStreamTip(path: .init(stream: stream)).ok.body.json
        #expect(empty.stream == stream && empty.version == 0 && empty.eventId == nil)

        let body = lines.prefix(2).joined(separator: "\n") + "\n"
        let stored = try await client.ingestEvents(path: .init(stream: stream), body: .applicationXNdjson(HTTPBody(body))).ok.body.json
        #expect(stored.appended == 2 && stored.duplicates == 0 && stored.version == 2 && stored.firstPosition == 1 && stored.lastPosition == 2)
        let retried = try await client.ingestEvents(path: .init(stream: stream), body: .applicationXNdjson(HTTPBody(body))).ok.body.json
        #expect(retried.appended == 0 && retried.duplicates == 2 && retried.version == 2)

        let tip = try await client.getStreamTip(path: .init(stream: stream)).ok.body.json
        let second = try JSONParser.parse(lines[1])
        #expect(tip.version == 2 && second["eventId"] == .string(tip.eventId ?? ""))

        // Version 4 while the stream is at 2: refused, and the answer names where it stands.
        let gap = try await client.ingestEvents(path: .init(stream: stream), body: .applicationXNdjson(HTTPBody(lines[3] + "\n")))
        guard case .conflict(let conflict) = gap else {
            Issue.record("a gap is not a 409: \(gap)")
            return
        }
        let error = try conflict.body.json.error
        #expect(error.code == .versionConflict && error.currentVersion == 2, "\(error.message)")
        #expect(try await client.getStreamTip(path: .init(stream: stream)).ok.body.json.version == 2, "nothing was stored")
    }
}
#endif
