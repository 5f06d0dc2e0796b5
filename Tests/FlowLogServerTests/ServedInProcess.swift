#if Network
    import FlowLogLMDB
    @testable import FlowLogServer
    import FlowLogTesting
    import Foundation
    import HTTPTypes
    import Hummingbird
    import HummingbirdTesting
    import NIOCore

    /// `flowlog serve`'s application on an LMDB log in a folder of its own, asked through
    /// HummingbirdTesting's router client: the routes, middleware and log threads `flowlog serve`
    /// runs (`FlowLogHTTPServer.Parts`), with no process to start, no port to wait for and no
    /// socket. What only the binary or a real socket shows (signals, listening, deadlines, streams
    /// to slow clients) is tested in FlowLogCLITests/Server.
    struct ServedInProcess: Sendable {
        /// The log's folder, for the command line to read (`flowlog export --db`).
        let db: String
        let client: any TestClientProtocol
        private let logLines: LogLines

        /// Runs `test` against a server on a fresh log; `prepare` fills the log first (import fixtures,
        /// play the demo). `tokenFile` and `corsOrigins` are `--token-file` and `--cors-origin`.
        static func test(
            tokenFile: String? = nil, corsOrigins: [String] = [], erasureKey: [UInt8]? = nil, projectors: [String] = [],
            deliveries: @escaping @Sendable () -> [TrackerDeliveries] = { [] },
            prepare: (String) throws -> Void = { _ in },
            _ test: @Sendable (ServedInProcess) async throws -> Void
        ) async throws {
            let folder = TemporaryDirectory(prefix: "flowlog-serve")
            let db = folder.child("log")
            try prepare(db)
            // As the composition root opens the log `flowlog serve` serves.
            let log = try LMDBEventLog(path: db, access: .readWriteCreating, initialMapSize: 1 << 36)
            var options = FlowLogHTTPServer.Options(
                host: "127.0.0.1", port: 0, tokens: try tokenFile.map { try TokenFile(path: $0) },
                corsOrigins: corsOrigins
            ) { _ in }
            options.erasureKey = erasureKey
            options.projectors = projectors
            options.deliveries = deliveries
            let lines = LogLines()
            var parts = try FlowLogHTTPServer.Parts(log: log, options: options, logger: FlowLogHTTPServer.logger { lines.append($0) })
            // The test framework runs the application's services and shuts them down gracefully when
            // `test` ends: the log threads stop as they stop after SIGTERM.
            parts.application.addServices(parts.logThreads)
            try await parts.application.test(.router) { client in
                try await test(ServedInProcess(db: db, client: client, logLines: lines))
            }
            withExtendedLifetime(folder) {}
        }

        func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) async throws -> HTTPResult {
            var fields = HTTPFields()
            for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            // As a client sends it: a POST always has a body, if an empty one (and so a Content-Length).
            let buffer = !body.isEmpty || method == "POST" ? ByteBuffer(bytes: body) : nil
            let response = try await client.executeRequest(uri: path, method: HTTPRequest.Method(method)!, headers: fields, body: buffer)
            return HTTPResult(
                status: response.status.code, headers: response.headers.map { ($0.name.rawName, $0.value) },
                body: Array(buffer: response.body))
        }

        func get(_ path: String, headers: [String: String] = [:]) async throws -> HTTPResult { try await request("GET", path, headers: headers) }

        func post(_ path: String, json: String, headers: [String: String] = [:]) async throws -> HTTPResult {
            try await request("POST", path, headers: ["Content-Type": "application/json"].merging(headers) { $1 }, body: Array(json.utf8))
        }

        func postNDJSON(_ path: String, _ text: String, headers: [String: String] = [:]) async throws -> HTTPResult {
            try await request("POST", path, headers: ["Content-Type": "application/x-ndjson"].merging(headers) { $1 }, body: Array(text.utf8))
        }

        func headPosition() async throws -> Int {
            guard case .integer(let head)? = try await get("/health").json["headPosition"] else { return -1 }
            return head
        }

        /// What the server logged so far: the JSON lines `flowlog serve` writes to standard error.
        var stderr: String { logLines.text }
    }

    /// The server's log lines, collected instead of written to standard error.
    final class LogLines: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []

        func append(_ line: [UInt8]) {
            lock.lock()
            bytes += line
            lock.unlock()
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

#endif
