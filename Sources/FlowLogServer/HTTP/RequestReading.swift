import Deciding

#if Network
    import FlowLogBasics
    import FlowLogHistory
    import FlowLogStore
    import Hummingbird
    import HummingbirdCore

    /// The limits of docs/decisions.md (The HTTP API) and the deadlines that keep a slow client from
    /// holding the server.
    public struct ServerLimits: Sendable {
        /// One command (`application/json`).
        public var commandBytes = 1 << 20
        /// An NDJSON batch of commands.
        public var batchBytes = 16 << 20
        public var batchLines = 100_000
        /// A request's head: its target and header fields (431 past it).
        public var headBytes = 32 << 10
        /// An export dropped on the inspector.
        public var sessionBytes = 64 << 20
        public var sessions = 8
        public var sessionLifetime: Duration = .seconds(3600)
        /// A request's head and body must have arrived within this time.
        public var requestTimeout: Duration = .seconds(30)
        public var subscribers = 256
        /// Frames a subscriber may have queued before it is disconnected.
        public var subscriberBufferBytes = 8 << 20
        /// How long a subscriber may go without a byte before it gets a `: heartbeat` comment.
        public var heartbeat: Duration = .seconds(15)
        /// Exports running at once (each holds a thread and a read transaction).
        public var exports = 16

        public init() {}
    }

    extension Request {
        /// The media type of `Content-Type`, lowercased, without parameters (`charset` is ignored).
        var mediaType: String? {
            guard let value = headers[.contentType] else { return nil }
            // The usual exact values skip Foundation's trimming and lowercasing (a few % of a request's CPU).
            if value == "application/json" || value == "application/x-ndjson" { return value }
            return value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }

        /// The whole body, refused past `limit` bytes (413, from `Content-Length` before reading).
        /// The connection's deadline (`GuardedHTTP1Channel`) bounds how long it may take: when it
        /// passes, the connection closes and this throws, so a body cut short is never used.
        func readBody(limit: Int, limitMessage: String) async throws -> ByteBuffer {
            let declared = headers[.contentLength].flatMap { Int($0) }
            if let declared, declared > limit { throw APIError.payloadTooLarge(limitMessage) }
            var collected = ByteBuffer()
            let cutShort = APIError.requestTimeout("The body did not arrive whole in time; nothing was applied. Send the whole request at once.")
            do {
                for try await chunk in body {
                    guard collected.readableBytes + chunk.readableBytes <= limit else { throw APIError.payloadTooLarge(limitMessage) }
                    var chunk = chunk
                    collected.writeBuffer(&chunk)
                }
            } catch let error as APIError {
                throw error
            } catch {
                // The deadline closed the connection, or the client left: not a failure of the server.
                throw cutShort
            }
            if let declared, collected.readableBytes != declared { throw cutShort }
            return collected
        }
    }

    /// Query parameters, checked as docs/openapi.json describes them; a bad one is 400 `invalidParameter`.
    struct Query {
        let parameters: FlatDictionary<Substring, Substring>

        init(_ request: Request) {
            parameters = request.uri.queryParameters
        }

        func string(_ name: String) -> String? { parameters[name[...]].map(String.init) }
        func strings(_ name: String) -> [String] { parameters[values: name[...]].map(String.init) }

        func integer(_ name: String, in range: ClosedRange<Int>, default value: Int? = nil) throws -> Int? {
            guard let text = string(name) else { return value }
            // A number past 64 bits is past every log: it reads as the largest, which each route judges.
            let digits = !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            guard let number = Int(text) ?? (digits ? Int.max : nil), range.contains(number) else {
                throw APIError.invalidParameter("\(name) must be an integer \(Self.describe(range)), not \(Self.shown(text)).")
            }
            return number
        }

        static func describe(_ range: ClosedRange<Int>) -> String {
            range.upperBound == Int.max ? "of \(range.lowerBound) or more" : "from \(range.lowerBound) through \(range.upperBound)"
        }

        static func shown(_ text: String) -> String {
            let clipped = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return
                "\"\(clipped.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined())\""
        }

        /// Stream names: each must be an identifier.
        func identifiers(_ name: String) throws -> [String] {
            try strings(name).map { value in
                guard Identifier.isValid(value) else {
                    throw APIError.invalidParameter(
                        "\(name) must be a stream id (1 to 64 characters of A-Z a-z 0-9 . _ : -), not \(Self.shown(value)).")
                }
                return value
            }
        }

        /// Event type names: each must be one FlowLog records.
        func eventTypes(_ name: String) throws -> Set<String> {
            var types: Set<String> = []
            for value in strings(name) {
                guard LogDecider.Event.kinds.info(typeName: value) != nil else {
                    throw APIError.invalidParameter(
                        "\(name) \(Self.shown(value)) is not an event type; the types are \(ExportFilter.eventTypes.joined(separator: ", ")).")
                }
                types.insert(value)
            }
            return types
        }

        func eventKinds(_ name: String) throws -> Set<LogDecider.Event.Kind> {
            Set(try eventTypes(name).compactMap { LogDecider.Event.kinds.info(typeName: $0)?.kind })
        }

        func time(_ name: String) throws -> Timestamp? {
            guard let text = string(name) else { return nil }
            guard let time = Timestamp(rfc3339: text) else {
                throw APIError.invalidParameter("\(name) must be an RFC 3339 time such as 2026-11-21T13:25:17Z, not \(Self.shown(text)).")
            }
            return time
        }
    }

    /// A path parameter that must be a stream id.
    func streamParameter(_ context: ServerContext) throws -> String {
        let raw = context.parameters.get("stream") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        guard Identifier.isValid(name) else {
            throw APIError.invalidParameter("The stream must be a stream id (1 to 64 characters of A-Z a-z 0-9 . _ : -), not \(Query.shown(name)).")
        }
        return name
    }
#endif
