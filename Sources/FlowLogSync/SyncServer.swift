public import FlowLogBasics
public import FlowLogProjections
public import Foundation
import Tracing

/// Sends one HTTP request and returns whatever the server answered; a request that got no answer
/// (refused, reset, timed out) throws `TransportFailure`. The `Network` build's `AsyncHTTPTransport`
/// is one; the tests use the server in process.
public protocol SyncTransport: AnyObject {
    func exchange(method: String, url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply
}

/// A FlowLog server as `push` and `pull` talk to it: where a stream stands (`GET /streams/{s}/tip`),
/// a stream's recorded events sent (`POST /streams/{s}/events`) and read (`GET /events?stream=`),
/// each retried with backoff while the server cannot answer (no answer, 429, 5xx).
public struct SyncServer {
    public let base: URL
    let token: String?
    let transport: any SyncTransport
    let retry: RetryPolicy
    /// The pause between attempts, replaceable in tests; the jitter comes from `random`.
    var sleep: (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }
    var random: () -> Double = { Double.random(in: 0...1) }

    /// `base`: the server's address, `http://` or `https://` with a host; anything else is refused
    /// before a request is made.
    public init(
        base: String, token: String?, transport: any SyncTransport,
        retry: RetryPolicy = RetryPolicy(deadline: 300, firstDelay: 0.2, maximumDelay: 10, timeout: 60)
    ) throws(SyncFailure) {
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw SyncFailure.usage(
                "\(JSONWriter.quoted(base)) is not a server address; give one such as http://127.0.0.1:8080 or https://flowlog.example.com")
        }
        (self.base, self.token, self.transport, self.retry) = (url, token, transport, retry)
    }

    /// Where a stream stands on the server: its version and last event id; `nil` when it was forgotten there.
    func tip(of stream: String) throws(SyncFailure) -> (version: Int, eventId: EventID?)? {
        let reply = try send("GET", "streams/\(stream)/tip", query: [], body: [])
        if reply.status == 410 { return nil }
        try expectSuccess(reply, asking: "where stream \(stream) stands")
        guard case .object(let members)? = reply.json, let tip = Self.tip(members) else {
            throw SyncFailure.notFlowLog("\(redacted(base)) answered GET /streams/\(stream)/tip with something other than a FlowLog tip")
        }
        return tip
    }

    /// A tip as both tip routes write it (`{"stream","version","eventId"}`), if it is one.
    static func tip(_ members: [(String, JSONValue)]) -> (version: Int, eventId: EventID?)? {
        guard case .integer(let version)? = members.first(where: { $0.0 == "version" })?.1, version >= 0 else { return nil }
        var eventId: EventID?
        if case .string(let text)? = members.first(where: { $0.0 == "eventId" })?.1 { eventId = EventID(text) }
        return (version, eventId)
    }

    /// Sends the request, trying again after a pause while no answer comes or the answer is 429
    /// or a 5xx, until the policy's deadline; then the last failure is thrown.
    func send(_ method: String, _ path: String, query: [URLQueryItem], body: [UInt8], contentType: String? = nil) throws(SyncFailure) -> HTTPReply {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/" + path
        if !query.isEmpty { components.queryItems = query }
        let url = components.url!
        var headers: [(String, String)] = [("Accept", "application/json, application/x-ndjson")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let contentType { headers.append(("Content-Type", contentType)) }
        // A client span per request, when spans are on; its context travels in the headers.
        let span = InstrumentationSystem.activeTracer.map { HTTPClientSpan(tracer: $0, method: method, url: url, shownURL: redacted(url)) }
        defer { span?.end() }
        if let span { headers += span.traceHeaders }
        let started = Date()
        var attempt = 0
        while true {
            attempt += 1
            var retryAfter: Double?
            let problem: String
            do {
                let reply = try transport.exchange(method: method, url: url, headers: headers, body: body, timeout: retry.timeout)
                span?.answered(reply.status)
                guard reply.status == 429 || (500...599).contains(reply.status), reply.status != 501 else { return reply }
                retryAfter = reply.retryAfter()
                problem = "\(method) \(url.path) answered \(reply.status): \(Self.message(of: reply))"
            } catch let failure as TransportFailure {
                problem = "\(method) \(url.path) got no answer (\(failure))"
            } catch {
                throw SyncFailure.unreachable("\(redacted(base)): \(error)")
            }
            let pause = retry.delay(afterAttempt: attempt, retryAfter: retryAfter, random: random())
            guard Date().timeIntervalSince(started) + pause < retry.deadline else {
                span?.failed(SyncFailure.unreachable(problem))
                throw SyncFailure.unreachable("\(problem); gave up after \(attempt) attempts")
            }
            span?.retrying(attempt: attempt, problem: problem, pause: pause)
            sleep(pause)
        }
    }

    /// Throws what a refusal that no retry mends means: a token the server does not take, a server
    /// that is not FlowLog (or one too old for sync), one that takes no recorded events.
    func expectSuccess(_ reply: HTTPReply, asking what: String) throws(SyncFailure) {
        switch reply.status {
        case 200..<300: return
        case 401:
            throw SyncFailure.denied(
                "\(redacted(base)) refused the token (401) when asked \(what); give a token it knows in FLOWLOG_TOKEN or --token-file")
        case 403: throw SyncFailure.denied("\(redacted(base)) refused the token (403): \(Self.message(of: reply))")
        case 404, 405:
            throw SyncFailure.notFlowLog(
                "\(redacted(base)) does not know the route for \(what) (\(reply.status)): not a FlowLog server, or one older than sync; upgrade it")
        case 501: throw SyncFailure.notFlowLog("\(redacted(base)): \(Self.message(of: reply))")
        default: throw SyncFailure.notFlowLog("\(redacted(base)) answered \(reply.status) when asked \(what): \(Self.message(of: reply))")
        }
    }

    /// The `error.message` of a FlowLog answer, or the first bytes of another one.
    static func message(of reply: HTTPReply) -> String {
        if case .string(let message)? = errorMember("message", of: reply) { return message }
        return String(decoding: reply.body.prefix(200), as: UTF8.self)
    }

    /// The `error.code` of a FlowLog answer.
    static func errorCode(of reply: HTTPReply) -> String? {
        guard case .string(let code)? = errorMember("code", of: reply) else { return nil }
        return code
    }

    /// A member of the `error` object of a FlowLog answer (`{"error":{"code","message",…}}`).
    private static func errorMember(_ name: String, of reply: HTTPReply) -> JSONValue? {
        guard case .object(let members)? = reply.json, case .object(let error)? = members.first(where: { $0.0 == "error" })?.1 else { return nil }
        return error.first(where: { $0.0 == name })?.1
    }
}

/// Why a push or pull stopped as a whole (a stream refused is not this: it is in the report).
public enum SyncFailure: Error, Equatable, CustomStringConvertible {
    /// A bad address or option.
    case usage(String)
    /// The server could not be reached, or kept failing, until the retries' deadline.
    case unreachable(String)
    /// The server refused the token.
    case denied(String)
    /// The server is not a FlowLog server that takes sync.
    case notFlowLog(String)
    /// The local log and the server's disagree about a stream (pull).
    case disagreement(String)

    public var description: String {
        switch self {
        case .usage(let text), .unreachable(let text), .denied(let text), .notFlowLog(let text), .disagreement(let text): text
        }
    }
}

extension HTTPReply {
    /// The body as JSON, when it is.
    var json: JSONValue? { body.withUnsafeBytes { try? JSONParser.parse($0) } }
}
