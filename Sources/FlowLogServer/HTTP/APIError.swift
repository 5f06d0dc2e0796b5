#if Network
    import FlowLogBasics
    import Hummingbird

    /// Every error that is not a command answer: `{"error":{"code","message"}}` with a stable code
    /// (docs/openapi.json lists them) and a sentence for a person.
    struct APIError: HTTPResponseError, Sendable {
        let status: HTTPResponse.Status
        let code: String
        let message: String
        var headers: HTTPFields = [:]
        /// Integer members beside `code` and `message` (a 409's `currentVersion`), as the document lists them.
        var details: [(name: String, value: Int)] = []

        func response(from request: Request, context: some RequestContext) throws -> Response {
            var json = JSONWriter(capacity: 128 + message.utf8.count)
            json.beginObject()
            writeMember(into: &json)
            json.endObject()
            json.newline()
            var fields = headers
            fields[.contentType] = "application/json"
            fields[.cacheControl] = "no-store"
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes)))
        }

        /// The `"error"` member, `{"code","message",…}`: the one place the body is written, whole
        /// (an answer) or inside an item of a batch's answer (`POST /ingest`).
        func writeMember(into json: inout JSONWriter) {
            json.key("error")
            json.beginObject()
            json.key("code")
            json.string(code)
            json.key("message")
            json.string(message)
            for (name, value) in details {
                json.key(dynamic: name)
                json.int(value)
            }
            json.endObject()
        }

        /// The whole body, for a response written below Hummingbird (the request deadline's 408).
        var body: String {
            var json = JSONWriter(capacity: 128 + message.utf8.count)
            json.beginObject()
            writeMember(into: &json)
            json.endObject()
            json.newline()
            return String(decoding: json.bytes, as: UTF8.self)
        }

        static func invalidParameter(_ message: String) -> APIError { APIError(status: .badRequest, code: "invalidParameter", message: message) }
        static func notFound(_ code: String, _ message: String) -> APIError { APIError(status: .notFound, code: code, message: message) }
        static func unavailable(_ message: String) -> APIError { APIError(status: .serviceUnavailable, code: "unavailable", message: message) }
        static func internalError() -> APIError {
            APIError(status: .internalServerError, code: "internalError", message: "An unexpected failure; please report it.")
        }

        static func streamNotFound(_ stream: String, listing: String = "GET /streams") -> APIError {
            .notFound("streamNotFound", "There is no stream \(stream) in the log; list the streams with \(listing).")
        }

        static func payloadTooLarge(_ message: String) -> APIError { APIError(status: .contentTooLarge, code: "payloadTooLarge", message: message) }

        /// 415: `advice` says what to send ("Send Content-Type …"); the message ends with what came.
        static func unsupportedMediaType(_ advice: String, sent: String?) -> APIError {
            APIError(
                status: .unsupportedMediaType, code: "unsupportedMediaType", message: "\(advice), not \(sent.map { Query.shown($0) } ?? "none").")
        }

        static func requestTimeout(_ message: String) -> APIError {
            APIError(status: .requestTimeout, code: "requestTimeout", message: message, headers: [.connection: "close"])
        }

        /// A failure of the log itself (damage, I/O): the server cannot answer from it.
        static func from(_ error: any Error) -> APIError {
            if let error = error as? APIError { return error }
            if let error = error as? FlowLogError {
                return .unavailable("The log cannot be read or written: \(error.description)")
            }
            return .internalError()
        }
    }

    /// JSON bodies written with the core's writer, the same bytes the CLI's JSON faces print.
    enum JSONBody {
        static func response(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], _ build: (inout JSONWriter) -> Void) -> Response {
            var json = JSONWriter(capacity: 1024)
            build(&json)
            json.newline()
            var fields = headers
            fields[.contentType] = "application/json"
            if fields[.cacheControl] == nil { fields[.cacheControl] = "no-store" }
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes)))
        }
    }
#endif
