import FlowDomain
import FlowLogTesting
import Foundation

/// The hostile requests that abuse HTTP itself: bodies cut short or over the limits, content
/// types, huge heads, slow bodies.
extension HostileCatalogue {
    static let command = #"{"type":"app.launched","stream":"hostile-truncated","hasOnboarded":false}"#

    /// A `Content-Length` larger than what is sent, then the client shuts its side: the server
    /// sees the end of the stream mid-body. A 4xx or a close (nobody is left to read an answer
    /// that HTTP/1.1 cannot send before the body ends).
    mutating func truncatedBodies() -> [HostileRequest] {
        var requests: [HostileRequest] = []
        for index in 0..<30 {
            let body = Array(Self.command.utf8)
            let sent = Int(rng.next() % UInt64(body.count))
            let (path, type, token) =
                index % 3 == 2
                ? ("/sessions", "application/x-ndjson", HostileRequest.readToken)
                : ("/commands", index % 3 == 0 ? "application/json" : "application/x-ndjson", HostileRequest.writeToken)
            let bytes = HostileRequest.bytes(
                "POST", Array(path.utf8), token: token, headers: [("Content-Type", type)],
                body: Array(body.prefix(sent)), contentLength: body.count + Int(rng.next() % 1000))
            requests.append(
                HostileRequest(
                    kind: .truncatedBody, label: "POST \(path) \(sent) of \(body.count) bytes", bytes: bytes,
                    delivery: .halfClose, expectation: .clientErrorOrClosed))
        }
        // A chunked body whose chunk sizes lie or overflow.
        for size in ["FFFFFFFFFFFFFFFFFFFF", "-1", "7FFFFFFFFFFFFFFF", "zz", "10000000000000000"] {
            let bytes = HostileRequest.bytes(
                "POST", Array("/commands".utf8), token: HostileRequest.writeToken,
                headers: [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")],
                body: Array("\(size)\r\n\(Self.command)\r\n0\r\n\r\n".utf8), contentLength: .some(nil))
            requests.append(HostileRequest(kind: .truncatedBody, label: "chunk size \(size)", bytes: bytes, expectation: .clientErrorOrClosed))
        }
        return requests
    }

    /// Bodies over the limits of docs/server.md: told by `Content-Length` (413 before reading) or
    /// sent whole; and `Content-Length` values no body has.
    mutating func oversizedBodies() -> [HostileRequest] {
        var requests: [HostileRequest] = []
        let padded = #"{"type":"payment.failed","stream":"big","reason":""# + String(repeating: "x", count: (1 << 20) + 10) + "\"}"
        requests.append(.post(.oversizedBody, "/commands", Array(padded.utf8), label: "a command over 1 MiB"))
        let line = #"{"type":"app.launched","stream":"big","hasOnboarded":false}"# + "\n"
        requests.append(
            .post(
                .oversizedBody, "/commands", Array(String(repeating: line, count: 100_001).utf8), contentType: "application/x-ndjson",
                label: "a batch of 100,001 lines"))
        for (path, type, limit, token) in [
            ("/commands", "application/json", 1 << 20, HostileRequest.writeToken),
            ("/commands", "application/x-ndjson", 16 << 20, HostileRequest.writeToken),
            ("/sessions", "application/x-ndjson", 64 << 20, HostileRequest.readToken),
        ] {
            for length in ["\(limit + 1)", "\(Int.max)", "99999999999999999999", "-1", "1e9", "0x10", "12, 13", "+12"] {
                let bytes =
                    Array(
                        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n\r\n"
                            .utf8)
                    + Array(Self.command.utf8)
                requests.append(
                    HostileRequest(
                        kind: .oversizedBody, label: "POST \(path) Content-Length: \(length)", bytes: bytes,
                        delivery: .halfClose, expectation: .clientErrorOrClosed))
            }
        }
        return requests
    }

    /// Every content type but the two the API takes, on both routes that take a body.
    mutating func wrongContentTypes() -> [HostileRequest] {
        var requests: [HostileRequest] = []
        let types: [String?] = [
            nil, "text/plain", "application/xml", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded",
            "application/jsonx", "json", "", ";", "application/json\u{1}", "text/csv", "application/octet-stream",
            String(repeating: "a", count: 5000),
        ]
        for type in types {
            // A control byte in a header value is the HTTP parser's to refuse, before any route.
            let expect: HostileRequest.Expectation = type?.contains("\u{1}") == true ? .clientErrorOrClosed : .clientError
            requests.append(
                .post(
                    .wrongContentType, "/commands", Array(Self.command.utf8), contentType: type,
                    label: "as \(type.map { String($0.prefix(40)) } ?? "none")",
                    expect: expect))
            requests.append(
                .post(
                    .wrongContentType, "/sessions", Array(Self.command.utf8), contentType: type ?? "application/json",
                    token: HostileRequest.readToken, label: "as \(type.map { String($0.prefix(40)) } ?? "application/json")", expect: expect))
        }
        return requests
    }

    /// Header values of 64 KiB and more, thousands of headers, a token of 70 KiB.
    mutating func hugeHeaders() -> [HostileRequest] {
        var requests: [HostileRequest] = []
        for size in [65_536, 100_000, 1 << 20] {
            let value = String(repeating: "v", count: size)
            requests.append(
                HostileRequest(
                    kind: .hugeHeaders, label: "a \(size)-byte header",
                    bytes: HostileRequest.bytes("GET", Array("/streams".utf8), headers: [("X-Huge", value)]),
                    expectation: .clientErrorOrClosed))
            requests.append(
                HostileRequest(
                    kind: .hugeHeaders, label: "a \(size)-byte token",
                    bytes: HostileRequest.bytes("GET", Array("/streams".utf8), token: value),
                    expectation: .clientErrorOrClosed))
            requests.append(
                HostileRequest(
                    kind: .hugeHeaders, label: "a \(size)-byte Last-Event-ID",
                    bytes: HostileRequest.bytes(
                        "GET", Array("/events/subscribe".utf8), headers: [("Last-Event-ID", String(repeating: "9", count: size))]),
                    expectation: .clientErrorOrClosed))
        }
        for count in [1_000, 5_000, 20_000] {
            let headers = (0..<count).map { ("X-Many-\($0)", "\(rng.next())") }
            requests.append(
                HostileRequest(
                    kind: .hugeHeaders, label: "\(count) headers",
                    bytes: HostileRequest.bytes("GET", Array("/streams".utf8), headers: headers), expectation: .clientErrorOrClosed))
        }
        let target = "/streams?q=" + String(repeating: "q", count: 100_000)
        requests.append(
            HostileRequest(
                kind: .hugeHeaders, label: "a 100,000-byte request target",
                bytes: HostileRequest.bytes("GET", Array(target.utf8)), expectation: .clientErrorOrClosed))
        return requests
    }

    /// A few clients that send their body a few bytes every 100 ms: the server's deadline
    /// (`--request-timeout 2` in the test; four times as long for a session's upload) answers 408
    /// long before the trickle would end.
    mutating func slowBodies() -> [HostileRequest] {
        (0..<4).map { index in
            let isSession = index == 3
            let body = Array(Self.command.utf8) + Array(repeating: 0x20, count: 2_000)
            let (path, type, token) =
                isSession
                ? ("/sessions", "application/x-ndjson", HostileRequest.readToken) : ("/commands", "application/json", HostileRequest.writeToken)
            return HostileRequest(
                kind: .slowBody, label: "POST \(path), 3 bytes every 100 ms",
                bytes: HostileRequest.bytes("POST", Array(path.utf8), token: token, headers: [("Content-Type", type)], body: body),
                delivery: .trickle(chunk: 3, intervalMilliseconds: 100, limitMilliseconds: isSession ? 12_000 : 6_000))
        }
    }
}
