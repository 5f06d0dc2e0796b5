#if Network
    import FlowLogTesting
    import Foundation
    import Testing

    /// Issue 40: the numbers of the HTTP API, bounded where they enter. Query parameters, the
    /// `Last-Event-ID` header and versions in paths at and past 64 bits get a 400 with the API's error
    /// JSON (or the route's own answer for a page past the end), never a trap. The real binary gets
    /// the whole hostile catalogue in FlowLogCLITests/Server/HostileRequestsTests.
    @Suite("serve: numbers at their bounds")
    struct ServerNumberBoundsTests {
        @Test func lastEventIDIsAPositionThatHasANext() async throws {
            try await ServedInProcess.test(prepare: FlowLogProcess.inspectorLog) { server in
                for value in ["9223372036854775807", "99999999999999999999", "-1", "-9223372036854775808", "1e3", "x"] {
                    let answer = try await server.get("/events/subscribe", headers: ["Last-Event-ID": value])
                    #expect(answer.status == 400, "\(value): \(answer.text)")
                    #expect(answer.errorCode == "invalidParameter", "\(value)")
                    #expect(
                        answer.text.contains("Last-Event-ID must be a position (an integer from 0 through 9223372036854775806)"), "\(answer.text)")
                }
                // The server still answers.
                #expect(try await server.get("/health").status == 200)
            }
        }

        @Test func queryNumbersPast64BitsAreRefusedOrPastTheEnd() async throws {
            try await ServedInProcess.test(prepare: FlowLogProcess.inspectorLog) { server in
                let stream = "session-4711"
                let refused = [
                    "/streams?limit=99999999999999999999", "/streams?limit=-9223372036854775808",
                    "/streams/\(stream)?at=99999999999999999999", "/streams/\(stream)?at=9223372036854775807", "/streams/\(stream)?at=-1",
                    "/streams/\(stream)/events?limit=9223372036854775807", "/streams/\(stream)/events?fromVersion=-99999999999999999999",
                    "/events?fromPosition=1e999", "/events?toPosition=-1", "/events/subscribe?from=-99999999999999999999",
                    "/streams/\(stream)/versions/-1", "/streams/\(stream)/versions/1e999",
                ]
                for path in refused {
                    let answer = try await server.get(path)
                    #expect(answer.status == 400, "\(path): \(answer.status) \(answer.text)")
                    #expect(answer.errorCode != nil, "\(path)")
                }
                // Past the end: an empty page, an empty export, no such version.
                let page = try await server.get("/streams/\(stream)/events?fromVersion=99999999999999999999")
                #expect(page.status == 200 && page.text.contains(#""events":[]"#), "\(page.text)")
                let export = try await server.get("/events?fromPosition=9223372036854775807")
                #expect(export.status == 200 && export.body.isEmpty)
                let version = try await server.get("/streams/\(stream)/versions/99999999999999999999")
                #expect(version.status == 404 && version.errorCode == "versionNotFound", "\(version.text)")
            }
        }
    }
#endif
