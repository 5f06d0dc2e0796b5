import Foundation

/// One request a hostile client sends `flowlog serve`, as raw bytes (so a head or body may be
/// what no well-behaved client library would write), how it is sent, and what the server must do.
struct HostileRequest: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case hugeNumber, deepNesting, invalidUTF8, truncatedBody, oversizedBody, wrongContentType
        case craftedExport, sessionRead, hugeHeaders, slowBody, queryNumber, pathSegment
    }

    /// How the bytes go out.
    enum Delivery: Sendable {
        /// All at once; the client then waits for the answer.
        case whole
        /// All at once, then the client shuts down its side (a body cut short by a client that left).
        case halfClose
        /// `chunk` bytes every `interval` milliseconds, for at most `limit` milliseconds.
        case trickle(chunk: Int, intervalMilliseconds: Int, limitMilliseconds: Int)
    }

    /// What the server must answer.
    enum Expectation: Equatable, Sendable {
        /// A 4xx with the API's error JSON.
        case clientError
        /// A 4xx, or the connection closed with nothing written: for what HTTP cannot answer (the
        /// client shut its side before the body it announced, or a head the parser refuses).
        case clientErrorOrClosed
        /// An NDJSON batch: 200 with one answer a line, every line refused (the batch contract of
        /// docs/server.md, "Status of a batch").
        case everyLineRefused(lines: Int)
        /// A value at the edge of what is lawful (a position of 2^63-1 in a scratch session, a page
        /// past the end): any answer but a 5xx.
        case notServerError
    }

    let kind: Kind
    let label: String
    let bytes: [UInt8]
    var delivery = Delivery.whole
    var expectation = Expectation.clientError

    static let readToken = "reader-token-0123456789abcdef"
    static let writeToken = "writer-token-0123456789abcdef"

    /// A request head and body; `contentLength` (default: the body's length) may lie, `nil` sends none.
    static func bytes(
        _ method: String, _ target: [UInt8], token: String? = readToken, headers: [(String, String)] = [],
        body: [UInt8] = [], contentLength: Int?? = .none
    ) -> [UInt8] {
        var head = Array("\(method) ".utf8) + target + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".utf8)
        if let token { head += Array("Authorization: Bearer \(token)\r\n".utf8) }
        for (name, value) in headers { head += Array("\(name): \(value)\r\n".utf8) }
        let length: Int? =
            switch contentLength {
            case .none: method == "GET" && body.isEmpty ? nil : body.count
            case .some(let given): given
            }
        if let length { head += Array("Content-Length: \(length)\r\n".utf8) }
        return head + Array("\r\n".utf8) + body
    }

    static func get(
        _ kind: Kind, _ path: String, token: String? = readToken, headers: [(String, String)] = [],
        expect: Expectation = .clientError
    ) -> HostileRequest {
        // A target past what the HTTP parser takes may be refused before any route sees it.
        HostileRequest(
            kind: kind, label: "GET \(path.prefix(120))", bytes: bytes("GET", Array(path.utf8), token: token, headers: headers),
            expectation: path.utf8.count > 16_384 && expect == .clientError ? .clientErrorOrClosed : expect)
    }

    static func post(
        _ kind: Kind, _ path: String, _ body: [UInt8], contentType: String? = "application/json",
        token: String = writeToken, label: String, expect: Expectation = .clientError
    ) -> HostileRequest {
        HostileRequest(
            kind: kind, label: "POST \(path) \(label)",
            bytes: bytes("POST", Array(path.utf8), token: token, headers: contentType.map { [("Content-Type", $0)] } ?? [], body: body),
            expectation: expect)
    }

    /// What the server did with one request.
    enum Outcome: CustomStringConvertible, Sendable {
        case answered(status: Int, errorCode: String?, body: [UInt8])
        /// The server closed the connection without writing a byte.
        case closed
        /// Bytes that are no HTTP answer, or none before the client's own deadline.
        case garbled(String)

        var description: String {
            switch self {
            case .answered(let status, let code, let body):
                "\(status) \(code ?? "") \(String(decoding: body.prefix(200), as: UTF8.self))"
            case .closed: "closed without an answer"
            case .garbled(let text): "no HTTP answer: \(text)"
            }
        }
    }

    /// Whether `outcome` is what the server owed this request; `nil` when it is, else why not.
    func judge(_ outcome: Outcome) -> String? {
        switch (expectation, outcome) {
        case (.clientError, .answered(let status, let code, _)) where (400..<500).contains(status) && code != nil: return nil
        case (.clientErrorOrClosed, .answered(let status, _, _)) where (400..<500).contains(status): return nil
        case (.clientErrorOrClosed, .closed): return nil
        case (.everyLineRefused(let lines), .answered(200, _, let body)):
            let answers = String(decoding: body, as: UTF8.self).split(separator: "\n")
            let refused = answers.filter { $0.contains(#""error""#) || $0.contains(#""rejected""#) || $0.contains(#""ok":false"#) }
            return answers.count == lines && refused.count == lines ? nil : "\(lines) lines, \(refused.count) refused: \(outcome)"
        case (.notServerError, .answered(let status, _, _)) where status < 500: return nil
        default: return "\(outcome)"
        }
    }
}
