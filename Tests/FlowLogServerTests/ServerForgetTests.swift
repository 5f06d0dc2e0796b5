#if Network
    import FlowLogTesting
    import Foundation
    import Testing

    /// `DELETE /streams/{stream}` (issue 29, item 6), in process: the `admin` scope, the answer
    /// `flowlog forget --format json` prints, and afterwards a server that knows the stream no more
    /// than one that never existed. The refusals (an old log, a log that cannot forget) are in
    /// ServerForgetRefusalTests.
    @Suite("serve: forgetting a stream")
    struct ServerForgetTests {
        private static func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

        /// The log the tests forget in: `gone` (a demo session, and a command with a correlation id),
        /// `kept` (another demo), and a copy of the folder as it was, for the command line to forget in.
        private static func prepare(_ db: String, twin: String) throws {
            for stream in ["gone", "kept"] {
                let demo = try FlowLogProcess.run(["demo", "--db", db, "--stream", stream])
                #expect(demo.status == 0, "\(demo.stderr)")
            }
            let sent = try FlowLogProcess.run(
                ["send", "--db", db],
                stdin:
                    #"{"type":"cart.addProduct","stream":"gone","productId":"x9","name":"Only gone's","unitPrice":700,"quantity":1,"correlationId":"req-gone-1"}"#
                    + "\n")
            #expect(sent.status == 0, "\(sent.stdout)\(sent.stderr)")
            try FileManager.default.createDirectory(atPath: twin, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: db + "/data.mdb", toPath: twin + "/data.mdb")
        }

        @Test func onlyAnAdminTokenForgets() async throws {
            let folder = TemporaryDirectory()
            let twin = folder.child("twin")
            try await ServedInProcess.test(tokenFile: try writeTokenFile(in: folder), prepare: { try Self.prepare($0, twin: twin) }) { server in
                let missing = try await server.request("DELETE", "/streams/gone")
                #expect(missing.status == 401)
                #expect(missing.text == (try await server.get("/streams/gone")).text, "the same 401 as every other route")
                #expect(missing.header("WWW-Authenticate") == "Bearer realm=\"flowlog\"")
                for token in ["writer-token-0123456789abcdef", "reader-token-0123456789abcdef"] {
                    let refused = try await server.request("DELETE", "/streams/gone", headers: Self.bearer(token))
                    #expect(refused.status == 403 && refused.errorCode == "forbidden")
                    guard case .string(let message)? = refused.json["error"]?["message"] else {
                        Issue.record("no message")
                        continue
                    }
                    #expect(message.contains("admin scope"), "\(message)")
                    #expect(refused.header("WWW-Authenticate")?.contains("scope=\"admin\"") == true)
                }
                // Refused, nothing was forgotten.
                #expect(try await server.get("/streams/gone", headers: Self.bearer("reader-token-0123456789abcdef")).status == 200)
                let forgotten = try await server.request("DELETE", "/streams/gone", headers: Self.bearer("admin-token-0123456789abcdef"))
                #expect(forgotten.status == 200, "\(forgotten.text)")
                #expect(try await server.get("/streams/gone", headers: Self.bearer("reader-token-0123456789abcdef")).status == 404)
            }
            withExtendedLifetime(folder) {}
        }

        @Test func theAnswerIsForgetsAndTheStreamIsThenUnknown() async throws {
            let folder = TemporaryDirectory()
            let twin = folder.child("twin")
            try await ServedInProcess.test(prepare: { try Self.prepare($0, twin: twin) }) { server in
                let kept = try await server.get("/streams/kept")
                // The stream list is read (and kept by the server) before the forget.
                let listed = try await server.get("/streams")
                #expect(listed.text.contains(#""stream":"gone""#))

                let answer = try await server.request("DELETE", "/streams/gone")
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "application/json")
                let cli = try FlowLogProcess.run(["forget", "--stream", "gone", "--format", "json", "--db", twin])
                #expect(cli.status == 0, "\(cli.stderr)")
                #expect(answer.text == cli.stdout, "the same JSON object as `flowlog forget --format json`")
                guard case .array(let ids)? = answer.json["correlationIds"] else {
                    Issue.record("no correlationIds")
                    return
                }
                #expect(ids.contains(.string("req-gone-1")), "\(ids)")
                #expect(answer.json["segment"]?["anonymousId"] == .string("gone"))

                // Every read about `gone` answers as about `nope`, which never existed (same length, so
                // the messages, which name the stream, compare once the names are swapped).
                for template in [
                    "/streams/S", "/streams/S?at=1", "/streams/S/events", "/streams/S/events?type=cart.productAdded",
                    "/streams/S/versions/0", "/streams/S/versions/1", "/streams/S/bisect?invariant=all",
                    "/streams?prefix=S", "/streams?q=S", "/events?stream=S", "/events?stream=S&fromPosition=2",
                ] {
                    let forgottenAnswer = try await server.get(template.replacingOccurrences(of: "S", with: "gone"))
                    let neverAnswer = try await server.get(template.replacingOccurrences(of: "S", with: "nope"))
                    #expect(forgottenAnswer.status == neverAnswer.status, "\(template)")
                    #expect(forgottenAnswer.text.replacingOccurrences(of: "gone", with: "nope") == neverAnswer.text, "\(template)")
                }
                let again = try await server.request("DELETE", "/streams/gone")
                let never = try await server.request("DELETE", "/streams/nope")
                #expect(again.status == 404 && again.errorCode == "streamNotFound")
                #expect(again.text.replacingOccurrences(of: "gone", with: "nope") == never.text, "a second forget is told what an unknown stream is")

                // The stream list the server kept was dropped; every other stream answers as before.
                let after = try await server.get("/streams")
                #expect(after.status == 200)
                #expect(!after.text.contains("gone"))
                #expect(after.text.contains(#""stream":"kept""#))
                #expect(try await server.get("/streams/kept").text == kept.text)
                #expect(!(try await server.get("/events")).text.contains("Only gone's"))
                let verify = try FlowLogProcess.run(["verify", "--db", server.db])
                #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            }
            withExtendedLifetime(folder) {}
        }

        /// The writer's cached state of the stream goes with it. Here another writer (`send`) starts
        /// the stream anew to the very version the cached state had: a stale cache would accept the
        /// removal of a product only the forgotten session held, and the append's version check would
        /// let it through.
        @Test func theWriterForgetsItsCachedState() async throws {
            try await ServedInProcess.test { server in
                let add = #"{"type":"cart.addProduct","stream":"life","productId":"p1","name":"Mug","unitPrice":1250,"quantity":1}"#
                #expect(try await server.post("/commands", json: add).status == 200)
                #expect(try await server.request("DELETE", "/streams/life").status == 200)
                let other = #"{"type":"cart.addProduct","stream":"life","productId":"p2","name":"Tee","unitPrice":1999,"quantity":1}"#
                let sent = try FlowLogProcess.run(["send", "--db", server.db], stdin: other + "\n")
                #expect(sent.stdout.contains(#""version":1"#), "\(sent.stdout)\(sent.stderr)")
                let remove = try await server.post("/commands", json: #"{"type":"cart.removeProduct","stream":"life","productId":"p1"}"#)
                #expect(remove.status == 422, "\(remove.text)")
                #expect(remove.text.contains("productNotInCart"), "\(remove.text)")
            }
        }

        /// A forget between group commits: writers appending to other streams lose nothing, and what
        /// was appended to the forgotten stream before the forget goes with it.
        @Test func forgettingWhileOthersAppendLosesNoAcknowledgedEvent() async throws {
            try await ServedInProcess.test(prepare: { db in _ = try FlowLogProcess.run(["demo", "--db", db, "--stream", "gone"]) }) { server in
                let perWriter = 40
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for writer in 0..<4 {
                        group.addTask {
                            var accepted = 0
                            for index in 0..<perWriter {
                                let command =
                                    #"{"type":"cart.addProduct","stream":"w\#(writer)","productId":"p\#(index)","name":"Item","unitPrice":100,"quantity":1}"#
                                if try await server.post("/commands", json: command).status == 200 { accepted += 1 }
                            }
                            return accepted
                        }
                    }
                    group.addTask {
                        let answer = try await server.request("DELETE", "/streams/gone")
                        #expect(answer.status == 200, "\(answer.text)")
                        return 0
                    }
                    var accepted = 0
                    for try await count in group { accepted += count }
                    #expect(accepted == 4 * perWriter)
                }
                for writer in 0..<4 {
                    #expect(try await server.get("/streams/w\(writer)").json["version"] == .integer(perWriter))
                }
                #expect(try await server.get("/streams/gone").status == 404)
                let verify = try FlowLogProcess.run(["verify", "--db", server.db])
                #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            }
        }
    }
#endif
