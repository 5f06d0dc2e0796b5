import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Posts a service's calls as one JSON body, `{"batch":[…]}` (the shape of Segment's batch API), and
/// retries with exponential backoff up to a bound. When the collector keeps failing it throws, so the
/// tracker stops with that status and its checkpoint stays put: it never skips an event.
///
/// It speaks plain HTTP/1.1 over a socket of its own rather than through URLSession, which would pull
/// libcurl into the statically linked binary; for an https collector, put a local forwarding proxy
/// in front of it.
public final class HTTPBatchSink: TrackerSink {
    public struct RetryPolicy: Sendable {
        public var attempts: Int
        public var firstDelay: Double
        public var maximumDelay: Double
        /// Calls per request; a larger delivery is split into several requests, sent in order.
        public var batchSize: Int

        public init(attempts: Int = 5, firstDelay: Double = 0.05, maximumDelay: Double = 2, batchSize: Int = 500) {
            self.attempts = attempts
            self.firstDelay = firstDelay
            self.maximumDelay = maximumDelay
            self.batchSize = batchSize
        }

        /// The pause before attempt `attempt` (from 2): doubling from the first delay, capped.
        public func delay(beforeAttempt attempt: Int) -> Double {
            min(maximumDelay, firstDelay * Double(1 << min(attempt - 2, 30)))
        }
    }

    public let url: URL
    public let policy: RetryPolicy
    /// Seconds a connection, a send or a receive may take before the attempt counts as failed.
    public var timeout: Double = 10

    public init(url: URL, policy: RetryPolicy = RetryPolicy()) {
        self.url = url
        self.policy = policy
    }

    public func deliver(_ calls: [[UInt8]]) throws {
        for start in stride(from: 0, to: calls.count, by: policy.batchSize) {
            try post(Array(calls[start..<min(start + policy.batchSize, calls.count)]))
        }
    }

    private func post(_ calls: [[UInt8]]) throws {
        var body = Array("{\"batch\":[".utf8)
        for (index, call) in calls.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += call
        }
        body += Array("]}".utf8)
        var problem = ""
        for attempt in 1...max(1, policy.attempts) {
            if attempt > 1 { Thread.sleep(forTimeInterval: policy.delay(beforeAttempt: attempt)) }
            switch send(body) {
            case .success(let status) where (200..<300).contains(status): return
            case .success(let status): problem = "HTTP status \(status)"
            case .failure(let error): problem = error.description
            }
        }
        throw FlowLogError.delivery(DeliveryFailure(url: url, attempts: policy.attempts, lastProblem: problem))
    }

    /// One POST on a fresh connection: the response's status code, or what went wrong.
    private func send(_ body: [UInt8]) -> Result<Int, FlowLogError> {
        guard url.scheme?.lowercased() == "http", let host = url.host else {
            return .failure(FlowLogError.input("only http:// collectors are supported (got \(url))"))
        }
        let port = url.port ?? 80
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var addresses: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &addresses) == 0, let first = addresses else {
            return .failure(FlowLogError.input("cannot resolve \(host)"))
        }
        defer { freeaddrinfo(addresses) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return .failure(FlowLogError.input("cannot open a socket: \(String(cString: strerror(errno)))")) }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            return .failure(FlowLogError.input("cannot connect to \(host):\(port): \(String(cString: strerror(errno)))"))
        }
        let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        let head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        do {
            try FileDescriptorOutput(fileDescriptor: descriptor).write(Array(head.utf8) + body)
        } catch {
            return .failure(FlowLogError.input("sending failed: \(error)"))
        }
        // Only the status line matters: "HTTP/1.1 200 OK".
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !response.contains(0x0A) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        let statusLine = String(decoding: response.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return .failure(FlowLogError.input(response.isEmpty ? "no response (timed out or closed)" : "not an HTTP response: \(statusLine.prefix(60))"))
        }
        return .success(status)
    }
}

/// A collector that refused every attempt of a delivery: `FlowLogError.delivery`.
public struct DeliveryFailure: Equatable, Sendable, CustomStringConvertible {
    public let url: URL
    public let attempts: Int
    public let lastProblem: String
    public var description: String {
        "the collector at \(url) refused \(attempts) attempts in a row (last: \(lastProblem)); the tracker stopped before these calls and will resume there"
    }
}
