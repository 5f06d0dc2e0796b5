#if Network
    import FlowLogSystem
    import FlowLogTesting
    import Foundation
    import Testing

    /// Safe by default: tokens and scopes, no CORS unless asked. In process; what needs the binary or
    /// real sockets (listening off loopback, deadlines for slow clients, the subscriber cap, a token
    /// on a live event stream) is in FlowLogCLITests/Server.
    @Suite("serve: safety")
    struct ServerSafetyTests {
        @Test func tokensAndScopesWithNoDetailLeaked() async throws {
            let folder = TemporaryDirectory()
            try await ServedInProcess.test(tokenFile: try writeTokenFile(in: folder), prepare: FlowLogProcess.inspectorLog) { server in
                let bearer = { (token: String) in ["Authorization": "Bearer \(token)"] }
                let missing = try await server.get("/streams")
                #expect(missing.status == 401)
                #expect(missing.header("WWW-Authenticate") == "Bearer realm=\"flowlog\"")
                let unknown = try await server.get("/streams", headers: bearer("nobody-knows-this-token-000"))
                #expect(unknown.status == 401)
                #expect(unknown.text == missing.text, "an unknown token is told nothing more than a missing one")
                #expect(try await server.get("/streams", headers: ["Authorization": "Basic abc"]).status == 401)
                #expect(try await server.get("/streams", headers: bearer("reader-token-0123456789abcdef")).status == 200)
                #expect(try await server.get("/streams", headers: bearer("admin-token-0123456789abcdef")).status == 200)
                let writerReads = try await server.get("/streams", headers: bearer("writer-token-0123456789abcdef"))
                #expect(writerReads.status == 403 && writerReads.errorCode == "forbidden")
                #expect(writerReads.header("WWW-Authenticate")?.contains("insufficient_scope") == true)
                let command = #"{"type":"app.launched","stream":"t","hasOnboarded":false}"#
                let readerWrites = try await server.post("/commands", json: command, headers: bearer("reader-token-0123456789abcdef"))
                #expect(readerWrites.status == 403)
                #expect(try await server.post("/commands", json: command).status == 401)
                #expect(try await server.post("/commands", json: command, headers: bearer("writer-token-0123456789abcdef")).status == 200)
                // No token needed for these; the token may travel as access_token= only to /events/subscribe
                // (a reader's token there opens the stream: FlowLogCLITests' ServerSafetyTests, on a socket).
                #expect(try await server.get("/health").status == 200)
                #expect(try await server.get("/openapi.json").status == 200)
                #expect(try await server.get("/inspector/").status == 200)
                #expect(try await server.get("/inspector/app.js").status == 200)
                #expect(try await server.get("/streams?access_token=reader-token-0123456789abcdef").status == 401)
                // A refused subscription is answered at once, so it needs no stream reader.
                let refused = try await server.get("/events/subscribe?access_token=writer-token-0123456789abcdef")
                #expect(refused.status == 403)
                // The token never reaches the access log.
                #expect(!server.stderr.contains("reader-token"))
            }
            withExtendedLifetime(folder) {}
        }

        @Test func noCORSUnlessAnOriginIsGiven() async throws {
            try await ServedInProcess.test { plain in
                let simple = try await plain.get("/health", headers: ["Origin": "http://elsewhere.example"])
                #expect(simple.header("Access-Control-Allow-Origin") == nil)
                let preflight = try await plain.request(
                    "OPTIONS", "/commands", headers: ["Origin": "http://elsewhere.example", "Access-Control-Request-Method": "POST"])
                #expect(preflight.status == 405 && preflight.header("Access-Control-Allow-Origin") == nil)
            }

            try await ServedInProcess.test(corsOrigins: ["http://app.example"]) { open in
                #expect(
                    try await open.get("/health", headers: ["Origin": "http://app.example"]).header("Access-Control-Allow-Origin")
                        == "http://app.example")
                #expect(try await open.get("/health", headers: ["Origin": "http://elsewhere.example"]).header("Access-Control-Allow-Origin") == nil)
                let allowed = try await open.request(
                    "OPTIONS", "/commands", headers: ["Origin": "http://app.example", "Access-Control-Request-Method": "POST"])
                #expect(allowed.status == 204)
                #expect(allowed.header("Access-Control-Allow-Methods") == "POST")
                #expect(allowed.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
                #expect(
                    try await open.get("/nothing", headers: ["Origin": "http://app.example"]).header("Access-Control-Allow-Origin")
                        == "http://app.example")
            }
        }
    }
#endif
