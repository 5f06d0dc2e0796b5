import FlowLogBasics
import FlowLogSystem
public import Foundation

/// HTTP/1.1 over a socket of its own, one connection a request, for loopback collectors only: the
/// embedded build (`--disable-default-traits`) has no TLS and no NIO, and sends its trackers to a
/// collector or forwarding proxy on this machine through this. The `Network` build uses
/// AsyncHTTPClient instead (TLS, pooled connections, proxies).
public final class PlainHTTPTransport: HTTPTransport {
    public init() {}

    public func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
        guard url.scheme?.lowercased() == "http", let host = url.host else {
            throw FlowLogError.input(
                "this build of flowlog speaks plain http:// to loopback collectors only (got \(redacted(url))); use the full build (swift build, with the default Network trait) for HTTPS"
            )
        }
        let port = url.port ?? 80
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var addresses: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &addresses) == 0, let first = addresses else {
            throw TransportFailure("cannot resolve \(host)")
        }
        defer { freeaddrinfo(addresses) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw TransportFailure("cannot open a socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw TransportFailure("cannot connect to \(host):\(port): \(String(cString: strerror(errno)))")
        }
        let path = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?" + $0 } ?? "")
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        do {
            try FileDescriptorOutput(fileDescriptor: descriptor).write(Array((head + "\r\n").utf8) + body)
        } catch {
            throw TransportFailure("sending failed: \(error)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && response.isEmpty { throw TransportFailure("no answer: \(String(cString: strerror(errno)))") }
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        return try Self.parse(response)
    }

    /// Status line, headers and body of a `Connection: close` response.
    static func parse(_ response: [UInt8]) throws -> HTTPReply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, response.count - 3)).first(where: { Array(response[$0..<$0 + 4]) == separator }) else {
            throw TransportFailure(response.isEmpty ? "the connection closed without an answer" : "the answer was cut off")
        }
        let lines = String(decoding: response[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw TransportFailure("not an HTTP answer: \(TerminalSafe.short(lines[0]))")
        }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPReply(status: status, headers: headers, body: Array(response[(end + 4)...]))
    }
}
