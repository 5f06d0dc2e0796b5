#if Network
    import FlowLogTesting
    import Foundation
    import Testing

    /// `POST /streams/{stream}/events` and `GET /streams/{stream}/tip` (issue 41, item 1), in process:
    /// a device's recorded events stored as it recorded them, a retry acknowledged as duplicates, every
    /// refusal storing nothing, a forgotten stream refused for good, and the `ingest` scope on its own.
    @Suite("serve: recorded events from devices")
    struct ServerIngestTests {
        static let key = Array("a-pseudonym-key-of-32-bytes-0123".utf8)

        /// Version `version` of stream `stream` as `export` writes it; `eventId` ends in `id`.
        static func line(
            _ stream: String = "phone-1", version: Int, id: Int? = nil, type: String = "cart.productAdded",
            eventVersion: Int = 2, data: String? = nil
        ) -> String {
            let payload = data ?? #"{"productId":"p\#(version)","name":"Mug","unitPrice":350,"quantity":1,"currency":"EUR"}"#
            let suffix = String(format: "%012d", id ?? version)
            return
                #"{"position":\#(version + 40),"stream":"\#(stream)","version":\#(version),"eventId":"01900000-0000-7000-8000-\#(suffix)","type":"\#(type)","actor":"user","timestamp":"2026-03-0\#(version % 9 + 1)T10:00:00.5Z","correlationId":"visit-7","eventVersion":\#(eventVersion),"data":\#(payload)}"#
        }

        static func lines(_ versions: ClosedRange<Int>, stream: String = "phone-1") -> String {
            versions.map { line(stream, version: $0) }.joined(separator: "\n") + "\n"
        }

        @Test func eventsAreStoredAsRecordedAndARetryIsAcknowledgedAsDuplicates() async throws {
            try await ServedInProcess.test(erasureKey: Self.key) { server in
                let first = try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...3))
                #expect(first.status == 200, "\(first.text)")
                #expect(first.json["appended"] == .integer(3) && first.json["duplicates"] == .integer(0) && first.json["version"] == .integer(3))
                let retry = try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...3))
                #expect(retry.status == 200 && retry.json["appended"] == .integer(0) && retry.json["duplicates"] == .integer(3), "\(retry.text)")
                let overlap = try await server.postNDJSON("/streams/phone-1/events", Self.lines(2...5))
                #expect(overlap.json["appended"] == .integer(2) && overlap.json["duplicates"] == .integer(2), "\(overlap.text)")
                let tip = try await server.get("/streams/phone-1/tip")
                #expect(tip.status == 200 && tip.json["version"] == .integer(5), "\(tip.text)")
                #expect(tip.json["eventId"] == .string("01900000-0000-7000-8000-000000000005"))
                // Ids, versions, times, actor and correlation as the device recorded them; positions the server's.
                let exported = try await server.get("/events?stream=phone-1").lines
                #expect(exported.count == 5)
                for (index, text) in exported.enumerated() {
                    let version = index + 1
                    #expect(text.contains(#""position":\#(version),"#) && text.contains(#""version":\#(version),"#), "\(text)")
                    #expect(text.contains("01900000-0000-7000-8000-00000000000\(version)") && text.contains(#""correlationId":"visit-7""#), "\(text)")
                    #expect(text.contains("2026-03-0\(version % 9 + 1)T10:00:00.500000Z"), "\(text)")
                }
                let empty = try await server.get("/streams/tablet-9/tip")
                #expect(empty.status == 200 && empty.json["version"] == .integer(0) && empty.json["eventId"] == nil, "\(empty.text)")
            }
        }

        @Test func aGapOrAnotherEventAtAVersionIsAConflictThatStoresNothing() async throws {
            try await ServedInProcess.test(erasureKey: Self.key) { server in
                _ = try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...2))
                let gap = try await server.postNDJSON("/streams/phone-1/events", Self.line(version: 4) + "\n")
                #expect(gap.status == 409 && gap.errorCode == "versionConflict", "\(gap.text)")
                #expect(gap.json["error"]?["currentVersion"] == .integer(2))
                let other = try await server.postNDJSON(
                    "/streams/phone-1/events", Self.line(version: 2, id: 99) + "\n" + Self.line(version: 3) + "\n")
                #expect(other.status == 409 && other.json["error"]?["currentVersion"] == .integer(2), "\(other.text)")
                guard case .string(let message)? = other.json["error"]?["message"] else {
                    Issue.record("no message")
                    return
                }
                #expect(message.contains("Version 2 holds another event"), "\(message)")
                #expect(try await server.headPosition() == 2, "nothing was stored")
            }
        }

        @Test func everyBadLineIsRefusedByNumberAndNothingIsStored() async throws {
            try await ServedInProcess.test(erasureKey: Self.key) { server in
                let good = Self.line(version: 1)
                let cases: [(body: String, status: Int, code: String, line: Int?)] = [
                    (good + "\n" + Self.line("tablet-9", version: 2) + "\n", 400, "malformedEvent", 2),
                    (good + "\n" + Self.line(version: 3) + "\n", 400, "malformedEvent", 2),
                    (good + "\n{\"position\":2,\n", 400, "malformedEvent", 2),
                    (good + "\n" + Self.line(version: 2, type: "cart.teleported") + "\n", 422, "unknownEventKind", nil),
                    (good + "\n" + Self.line(version: 2, eventVersion: 99) + "\n", 422, "unknownEventKind", nil),
                    (
                        Self.line(version: 1, type: "log.streamForgotten", eventVersion: 1, data: #"{"events":3,"reason":"x"}"#) + "\n", 400,
                        "malformedEvent", 1
                    ),
                    (
                        #"{"position":1,"version":1,"eventId":"01900000-0000-7000-8000-000000000001","type":"app.launched","actor":"user","timestamp":"2026-03-01T10:00:00Z","forgotten":true}"#
                            + "\n", 400, "malformedEvent", 1
                    ),
                    ("\n\n", 400, "malformedEvent", 1),
                    (good.replacingOccurrences(of: #""quantity":1"#, with: #""quantity":99999999999999999999"#) + "\n", 400, "malformedEvent", 1),
                ]
                for (body, status, code, line) in cases {
                    let answer = try await server.postNDJSON("/streams/phone-1/events", body)
                    #expect(answer.status == status && answer.errorCode == code, "\(body)\n→ \(answer.status) \(answer.text)")
                    if let line { #expect(answer.json["error"]?["line"] == .integer(line), "\(answer.text)") }
                }
                let json = try await server.request(
                    "POST", "/streams/phone-1/events", headers: ["Content-Type": "application/json"], body: Array(good.utf8))
                #expect(json.status == 415 && json.errorCode == "unsupportedMediaType")
                let reserved = try await server.postNDJSON("/streams/flowlog:erasures/events", good + "\n")
                #expect(reserved.status == 400, "\(reserved.text)")
                #expect(try await server.headPosition() == 0, "nothing was stored")
            }
        }

        @Test func anOlderEventVersionIsUpcastAsImportUpcastsIt() async throws {
            try await ServedInProcess.test(erasureKey: Self.key) { server in
                let old = Self.line(version: 1, eventVersion: 1, data: #"{"productId":"p1","name":"Mug","unitPrice":350,"quantity":2}"#)
                let stored = try await server.postNDJSON("/streams/phone-1/events", old + "\n")
                #expect(stored.status == 200, "\(stored.text)")
                let exported = try await server.get("/events?stream=phone-1").text
                #expect(exported.contains(#""eventVersion":2"#) && exported.contains(#""quantity":2"#), "\(exported)")
            }
        }

        @Test func aForgottenStreamIsGoneForGoodAndIsNotStoredAgain() async throws {
            try await ServedInProcess.test(erasureKey: Self.key) { server in
                _ = try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...3))
                #expect(try await server.request("DELETE", "/streams/phone-1").status == 200)
                let late = try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...4))
                #expect(late.status == 410 && late.errorCode == "streamForgotten", "\(late.text)")
                #expect(try await server.get("/streams/phone-1/tip").status == 410)
                #expect(try await server.get("/streams/phone-1").status == 404, "nothing of it was stored again")
                // Another session is taken as before; one that reuses a stored event id is a conflict.
                let reused = try await server.postNDJSON("/streams/phone-2/events", Self.lines(1...1, stream: "phone-2"))
                #expect(reused.status == 409 && reused.text.contains("already in the log, at position 1"), "\(reused.text)")
                let other = try await server.postNDJSON("/streams/phone-2/events", Self.line("phone-2", version: 1, id: 201) + "\n")
                #expect(other.status == 200, "\(other.text)")
            }
        }

        @Test func manyStreamsInOneRequestAreEachAnsweredOnTheirOwn() async throws {
            try await ServedInProcess.test(erasureKey: Self.key) { server in
                _ = try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...2))
                _ = try await server.postNDJSON(
                    "/streams/phone-9/events", Self.lines(1...1, stream: "phone-9").replacingOccurrences(of: "000000000001", with: "000000000901"))
                #expect(try await server.request("DELETE", "/streams/phone-9").status == 200)
                let tips = try await server.post("/ingest/tips", json: #"{"streams":["phone-1","phone-2","phone-9"]}"#)
                #expect(tips.status == 200, "\(tips.text)")
                #expect(tips.text.contains(#"{"stream":"phone-1","version":2,"eventId":"01900000-0000-7000-8000-000000000002"}"#), "\(tips.text)")
                #expect(
                    tips.text.contains(#"{"stream":"phone-2","version":0}"#) && tips.text.contains(#"{"stream":"phone-9","gone":true}"#),
                    "\(tips.text)")
                // phone-1: a retry of 2 and a new 3; phone-2: new; phone-3: a gap; phone-9: forgotten.
                let body =
                    Self.lines(2...3) + Self.line("phone-2", version: 1, id: 201) + "\n" + Self.line("phone-3", version: 2, id: 302) + "\n"
                    + Self.line("phone-2", version: 2, id: 202) + "\n" + Self.line("phone-9", version: 1, id: 901) + "\n"
                let answer = try await server.postNDJSON("/ingest", body)
                #expect(answer.status == 200, "\(answer.text)")
                guard case .array(let streams)? = answer.json["streams"], streams.count == 4 else {
                    Issue.record("\(answer.text)")
                    return
                }
                #expect(streams[0]["appended"] == .integer(1) && streams[0]["duplicates"] == .integer(1), "\(answer.text)")
                #expect(streams[1]["appended"] == .integer(2) && streams[1]["version"] == .integer(2), "\(answer.text)")
                #expect(streams[2]["status"] == .integer(409) && streams[2]["error"]?["currentVersion"] == .integer(0), "\(answer.text)")
                #expect(streams[3]["status"] == .integer(410) && streams[3]["error"]?["code"] == .string("streamForgotten"), "\(answer.text)")
                #expect(try await server.get("/streams/phone-3/tip").json["version"] == .integer(0), "the refused stream stored nothing")
                #expect(try await server.headPosition() == 7, "2 + 1 + the audit event + 3 in one request")
                let refused = try await server.postNDJSON(
                    "/ingest", Self.line("phone-4", version: 1, id: 401) + "\n" + Self.line("phone-4", version: 3, id: 403) + "\n")
                #expect(refused.status == 400 && refused.json["error"]?["line"] == .integer(2), "\(refused.text)")
            }
        }

        @Test func withoutAKeyTheServerTakesNoRecordedEvents() async throws {
            try await ServedInProcess.test { server in
                let refused = try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...1))
                #expect(refused.status == 501 && refused.errorCode == "ingestNeedsKey", "\(refused.text)")
                #expect(try await server.get("/streams/phone-1/tip").status == 501)
            }
        }

        @Test func theIngestScopeStandsAlone() async throws {
            let folder = TemporaryDirectory()
            try await ServedInProcess.test(tokenFile: try writeTokenFile(in: folder), erasureKey: Self.key) { server in
                let ingest = ["Authorization": "Bearer ingest-token-0123456789abcdef"]
                #expect(try await server.postNDJSON("/streams/phone-1/events", Self.lines(1...2), headers: ingest).status == 200)
                #expect(try await server.get("/streams/phone-1/tip", headers: ingest).status == 200)
                #expect(try await server.get("/streams/phone-1", headers: ingest).status == 403, "ingest grants no reading")
                let command = try await server.post("/commands", json: #"{"stream":"phone-1","type":"cart.checkout"}"#, headers: ingest)
                #expect(command.status == 403, "ingest grants no commands")
                for token in ["writer-token-0123456789abcdef", "admin-token-0123456789abcdef"] {
                    let refused = try await server.postNDJSON(
                        "/streams/phone-1/events", Self.lines(3...3), headers: ["Authorization": "Bearer \(token)"])
                    #expect(
                        refused.status == 403 && refused.header("WWW-Authenticate")?.contains("scope=\"ingest\"") == true, "\(token): \(refused.text)"
                    )
                }
                #expect(try await server.headPosition() == 2)
            }
            withExtendedLifetime(folder) {}
        }
    }
#endif
