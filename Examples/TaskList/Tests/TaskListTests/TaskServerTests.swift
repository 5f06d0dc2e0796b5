#if Network
    import FlowLogBasics
    import FlowLogLMDB
    @testable import FlowLogServer
    import Foundation
    import HTTPTypes
    import Hummingbird
    import HummingbirdTesting
    import NIOCore
    import Testing

    /// `flowlog serve`'s application, compiled for the list, asked in process: the list's commands
    /// over HTTP, its state, its history and its invariants, as the server answers for the shop.
    @Suite("The to-do list's log served over HTTP")
    struct TaskServerTests {
        @Test func theListsCommandsAndStatesAreServed() async throws {
            let folder = try TaskLogTests.scratchFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let log = try LMDBEventLog(path: folder + "/list.lmdb")
            let options = FlowLogHTTPServer.Options(host: "127.0.0.1", port: 0, tokens: nil) { _ in }
            var parts = try FlowLogHTTPServer.Parts(log: log, options: options, logger: FlowLogHTTPServer.logger { _ in })
            parts.application.addServices(parts.logThreads)
            try await parts.application.test(.router) { client in
                func send(_ line: String) async throws -> (status: Int, body: String) {
                    let response = try await client.executeRequest(
                        uri: "/commands", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: line))
                    return (response.status.code, String(buffer: response.body))
                }
                func get(_ path: String) async throws -> (status: Int, body: String) {
                    let response = try await client.executeRequest(uri: path, method: .get, headers: [:], body: nil)
                    return (response.status.code, String(buffer: response.body))
                }

                #expect(try await send(#"{"type":"task.add","stream":"list-1","taskId":"t1","title":"Buy milk"}"#).status == 200)
                #expect(try await send(#"{"type":"task.complete","stream":"list-1","taskId":"t1"}"#).status == 200)
                let again = try await send(#"{"type":"task.complete","stream":"list-1","taskId":"t1"}"#)
                #expect(again.status == 422 && again.body.contains("taskAlreadyCompleted"), "\(again)")
                let unknown = try await send(#"{"type":"cart.addProduct","stream":"list-1","productId":"p1","unitPrice":350,"quantity":1}"#)
                #expect(unknown.status == 400 && unknown.body.contains("unknownCommand"), "\(unknown)")

                let state = try await get("/streams/list-1")
                #expect(state.status == 200 && state.body.contains(#""completed":true"#) && state.body.contains(#""openTasks":0"#), "\(state)")
                let first = try await get("/streams/list-1/versions/1")
                #expect(first.status == 200 && first.body.contains(#""completed":false"#), "\(first)")
                let events = try await get("/streams/list-1/events")
                #expect(events.body.contains("task.added") && events.body.contains("task.completed"), "\(events)")
                let invariants = try await get("/invariants")
                #expect(invariants.body.contains("open-tasks") && !invariants.body.contains("cart"), "\(invariants)")
            }
        }
    }
#endif
