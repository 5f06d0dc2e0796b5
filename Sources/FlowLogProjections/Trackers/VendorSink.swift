public import FlowLogBasics
public import Foundation
import Tracing

/// Where a vendor takes its requests: the URL and the headers that carry the credentials. Its
/// `description` never shows the credentials (GA4's `api_secret` is in the query).
public struct VendorEndpoint: Sendable, CustomStringConvertible {
    public let url: URL
    public let headers: [(String, String)]

    public init(url: URL, headers: [(String, String)] = []) { (self.url, self.headers) = (url, headers) }

    /// Segment: HTTP Basic with the write key as the user name and no password.
    public static func segment(url: URL, writeKey: String) -> VendorEndpoint {
        VendorEndpoint(url: url, headers: [("Authorization", "Basic " + Data((writeKey + ":").utf8).base64EncodedString())])
    }

    /// GA4: `measurement_id` and `api_secret` in the query of the collect URL.
    public static func ga4(url: URL, measurementId: String, apiSecret: String) -> VendorEndpoint {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "measurement_id", value: measurementId), URLQueryItem(name: "api_secret", value: apiSecret),
            ]
        return VendorEndpoint(url: components.url!)
    }

    public var description: String { redacted(url) }
}

/// Posts a service's messages to its vendor in requests within the vendor's limits, retrying what
/// may pass later (429, 5xx, no answer) up to the policy's deadline, and dead-lettering what never
/// will (400, 401, 403, 413 and other 4xx) so that delivery goes on. A request refused as a whole
/// with 400 or 413 is split in halves, so one bad message does not take its neighbours with it.
public final class VendorSink: TrackerSink {
    public let endpoint: VendorEndpoint
    public let transport: any HTTPTransport
    public var policy: RetryPolicy
    public let journal: DeliveryJournal
    /// Effects, replaceable in tests: waiting, jitter, the monotonic clock, and `sentAt`.
    public var sleep: (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }
    public var random: () -> Double = { Double.random(in: 0..<1) }
    public var seconds: () -> Double = { MonotonicClock.seconds() }
    public var now: () -> Timestamp = { SystemClock().now() }
    /// Throw `DeliveryPaused` instead of sleeping through a retry pause, so that a runner serving
    /// several trackers (`ProjectionRunner.catchUpEach`) serves the others meanwhile.
    public var pausesInsteadOfSleeping = false
    /// The request being retried across pauses: its first message id, when it was first tried, and
    /// how many attempts it had; so the deadline counts from the first attempt however it waited.
    private var retrying: (id: String, started: Double, attempts: Int)?

    public init(endpoint: VendorEndpoint, transport: any HTTPTransport, policy: RetryPolicy = RetryPolicy(), journal: DeliveryJournal) {
        (self.endpoint, self.transport, self.policy, self.journal) = (endpoint, transport, policy, journal)
    }

    public func deliver(_ messages: [TrackerMessage], of service: any AnalyticsService, done: (Int) throws -> Void) throws {
        for step in RequestPlanner.plan(messages, limits: service.limits) {
            switch step {
            case .deadLetter(let message, let reason):
                try journal.deadLetter([message], status: nil, response: [], reason: reason)
                try done(message.position)
            case .request(let slice):
                try send(slice, of: service)
                if let last = slice.last { try done(last.position) }
            }
        }
    }

    private func send(_ messages: ArraySlice<TrackerMessage>, of service: any AnalyticsService) throws {
        guard let tracer = InstrumentationSystem.activeTracer else { return try send(messages, of: service, span: nil) }
        let span = HTTPClientSpan(
            tracer: tracer, method: "POST", url: endpoint.url, shownURL: endpoint.description,
            attributes: ["flowlog.tracker": .string(service.name), "flowlog.tracker.messages": .int64(Int64(messages.count))])
        defer { span.end() }
        do {
            try send(messages, of: service, span: span)
        } catch let paused as DeliveryPaused {
            span.note("paused", ["flowlog.retry.pause_s": .double(paused.seconds)])
            throw paused
        } catch {
            span.failed(error)
            throw error
        }
    }

    /// One request (and its retries): `span`, when spans are on, hears each attempt's answer.
    private func send(_ messages: ArraySlice<TrackerMessage>, of service: any AnalyticsService, span: HTTPClientSpan?) throws {
        let key = messages.first?.id ?? ""
        let resumed = retrying?.id == key ? retrying : nil
        let started = resumed?.started ?? seconds()
        var attempt = resumed?.attempts ?? 0
        while true {
            attempt += 1
            let problem: String
            var retryAfter: Double?
            do {
                let body = service.body(of: messages, sentAt: now())
                let reply = try transport.post(
                    endpoint.url, headers: [("Content-Type", "application/json")] + endpoint.headers, body: body, timeout: policy.timeout)
                span?.answered(reply.status)
                switch reply.status {
                case 200..<300:
                    retrying = nil
                    try journal.count(delivered: messages.count)
                    return
                case 429, 408, 500...599:
                    problem = "HTTP \(reply.status)\(Self.excerpt(reply.body))"
                    retryAfter = reply.retryAfter()
                case 400 where messages.count > 1, 413 where messages.count > 1:
                    let half = messages.startIndex + messages.count / 2
                    try send(messages[..<half], of: service)
                    try send(messages[half...], of: service)
                    return
                default:
                    retrying = nil
                    let reason = "HTTP \(reply.status) from \(endpoint)\(Self.excerpt(reply.body)): \(Self.meaning(reply.status))"
                    try journal.deadLetter(Array(messages), status: reply.status, response: reply.body, reason: reason)
                    return
                }
            } catch let failure as TransportFailure {
                problem = failure.description
            }
            let pause = policy.delay(afterAttempt: attempt, retryAfter: retryAfter, random: random())
            if seconds() + pause - started > policy.deadline {
                retrying = nil
                try? journal.count(error: "\(endpoint): \(problem)")
                throw FlowLogError.delivery(DeliveryFailure(url: endpoint.description, attempts: attempt, lastProblem: problem))
            }
            span?.retrying(attempt: attempt, problem: problem, pause: pause)
            try journal.count(retried: 1, error: "\(endpoint): \(problem) (retrying)")
            if pausesInsteadOfSleeping {
                retrying = (key, started, attempt)
                throw DeliveryPaused(seconds: pause, problem: problem)
            }
            sleep(pause)
        }
    }

    static func excerpt(_ body: [UInt8]) -> String {
        body.isEmpty ? "" : " " + TerminalSafe.short(String(decoding: body.prefix(200), as: UTF8.self))
    }

    static func meaning(_ status: Int) -> String {
        switch status {
        case 401, 403: "the collector refused the credentials (check the write key or api_secret, then replay the dead letters)"
        case 413: "the request was too large for the collector"
        case 400: "the collector refused the message as invalid"
        default: "the collector refused the request; it is not retried"
        }
    }
}
