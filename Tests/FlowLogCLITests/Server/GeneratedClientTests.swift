#if Network
    import FlowLogBasics
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
            #expect(health.headPosition == 0 && health.status == .ok)

            let command = Components.Schemas.Command(
                value1: .init(_type: "cart.addProduct", stream: "cart-1", id: "cmd-1"),
                value2: .AddProductCommand(.init(_type: .cart_addProduct, productId: "p1", unitPrice: 350, quantity: 2, name: "Mug")))
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

        /// Recorded events (the envelope and the kind's typed data) and versions, whose event is null
        /// at version 0: the shapes openapi.json writes for the generator (docs/client.md).
        @Test func eventsAndVersionsDecodeWithTheirKindsAndNulls() async throws {
            let server = try ServedLog()
            let client = Client(serverURL: URL(string: server.base)!, httpClient: .shared)
            let sent = try server.postNDJSON(
                "/commands",
                """
                {"type":"cart.addProduct","stream":"cart-1","productId":"p1","unitPrice":350,"quantity":2}
                {"type":"app.launched","stream":"app-1","hasOnboarded":false}

                """)
            #expect(sent.status == 200, "\(sent.text)")

            let page = try await client.listStreamEvents(path: .init(stream: "cart-1")).ok.body.json
            #expect(page.events.count == 1 && page.nextVersion == nil)
            let added = try #require(page.events.first)
            #expect(
                added.value1.position == 1 && added.value1.stream == "cart-1" && added.value1.version == 1 && added.value1._type == .cart_productAdded
            )
            guard case .case1(let kind) = added.value2, let data = kind.data else {
                Issue.record("cart.productAdded decoded as \(added.value2)")
                return
            }
            #expect(data.productId == "p1" && data.quantity == 2 && data.currency == "USD")
            let launched = try #require(try await client.listStreamEvents(path: .init(stream: "app-1")).ok.body.json.events.first)
            #expect(launched.value1._type == .app_launched && launched.value1.position == 2)

            let origin = try await client.getVersion(path: .init(stream: "cart-1", version: 0)).ok.body.json
            #expect(origin.event == nil && origin.state.version == 0 && origin.changes.isEmpty)
            let first = try await client.getVersion(path: .init(stream: "cart-1", version: 1)).ok.body.json
            guard case .EventEnvelope(let event)? = first.event else {
                Issue.record("version 1 has no event: \(String(describing: first.event))")
                return
            }
            #expect(event.value1.eventId == added.value1.eventId && first.state.cart.currency == "USD")
            // The time as the server wrote it, to the microsecond.
            let exported = try FlowLogProcess.run(["export", "--db", server.db]).stdoutLines
            let line = try JSONParser.parse(try #require(exported.first))
            #expect(line["timestamp"] == .string(try FlowLogDateTranscoder().encode(added.value1.timestamp)))
        }

        @Test func timesAreReadAndWrittenAsFlowLogWritesThem() throws {
            let transcoder = FlowLogDateTranscoder()
            for text in [
                "2026-11-21T13:40:29.204217Z", "1970-01-01T00:00:00.000000Z", "2024-02-29T23:59:59.999999Z",
                "1969-12-31T23:59:59.000001Z", "2000-03-01T00:00:00.500000Z", "9999-12-31T23:59:59.123456Z",
            ] {
                #expect(try transcoder.encode(transcoder.decode(text)) == text)
            }
            #expect(try transcoder.decode("2026-03-01T10:00:00.5Z") == transcoder.decode("2026-03-01T10:00:00.500000Z"))
            #expect(try transcoder.decode("2026-03-01T10:00:00Z").timeIntervalSince1970 == 1_772_359_200)
            for bad in ["2026-03-01 10:00:00Z", "2026-13-01T10:00:00Z", "2026-03-01T10:00:00.Z", "2026-03-01T10:00:00+01:00", ""] {
                #expect(throws: FlowLogDateTranscoder.InvalidTimestamp.self) { try transcoder.decode(bad) }
            }
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
