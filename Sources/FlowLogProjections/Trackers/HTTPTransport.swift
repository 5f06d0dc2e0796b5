public import Foundation

/// An HTTP answer: what a tracker's delivery decides on.
public struct HTTPReply: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) { (self.status, self.headers, self.body) = (status, headers, body) }

    /// The first header of that name, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// `Retry-After` in seconds: delta-seconds, or an HTTP date (RFC 9110 §10.2.3) counted from `now`.
    public func retryAfter(now: Date = Date()) -> Double? {
        guard let value = header("Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSince(now)) }
    }
}

/// Posts one request. A network failure (refused, reset, timed out) is thrown as `TransportFailure`;
/// any HTTP answer, whatever its status, is returned. The `Network` build sends through
/// AsyncHTTPClient (FlowLogHTTPClient); the embedded build through `PlainHTTPTransport`.
public protocol HTTPTransport: AnyObject {
    func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply
}

/// A request that got no HTTP answer: worth trying again.
public struct TransportFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A URL as messages may show it: without its query (GA4's `api_secret`) or user information.
public func redacted(_ url: URL) -> String {
    var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    components?.query = nil
    components?.user = nil
    components?.password = nil
    return components?.string ?? "the collector"
}
