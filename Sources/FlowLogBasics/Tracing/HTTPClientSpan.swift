public import Foundation
public import Tracing

/// A request FlowLog makes (a tracker's to its vendor, `push`'s and `pull`'s to a server) as an
/// OpenTelemetry HTTP client span named by its method: the URL without its credentials, the host
/// and port, the last answer's status, and each retry as an event on it (`retry`: the attempt, what
/// went wrong, the pause). Its parent is the current context (a projector's batch, the command's
/// own span); `traceHeaders` carries it to a server that traces too (`flowlog serve`).
public final class HTTPClientSpan {
    private let span: any Span
    /// The last answer's status: the span's status is the request's outcome, so it is set at the
    /// end (a 503 retried into a 200 is no error; swift-otel keeps an error status once set).
    private var lastStatus: Int?
    private var failure = false

    /// `shownURL`: the URL as it may be written down (no `api_secret`, no token).
    public init(tracer: any Tracer, method: String, url: URL, shownURL: String, attributes: SpanAttributes = [:]) {
        span = tracer.startSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        guard span.isRecording else { return }
        span.attributes["http.request.method"] = method
        span.attributes["url.full"] = shownURL
        if let host = url.host { span.attributes["server.address"] = host }
        span.attributes["server.port"] = url.port ?? (url.scheme == "https" ? 443 : 80)
        span.updateAttributes { $0.merge(attributes) }
    }

    /// The W3C headers (`traceparent`, `tracestate`) that make this span the parent of the server's.
    public var traceHeaders: [(String, String)] {
        span.context.traceHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The server answered `status`; if it is the last answer and a 4xx or 5xx, the span ends as
    /// an error, as the HTTP conventions say for a client.
    public func answered(_ status: Int) {
        span.attributes["http.response.status_code"] = status
        lastStatus = status
    }

    public func retrying(attempt: Int, problem: String, pause: Double) {
        span.addEvent(
            SpanEvent(
                name: "retry",
                attributes: [
                    "flowlog.retry.attempt": .int64(Int64(attempt)), "flowlog.retry.problem": .string(problem),
                    "flowlog.retry.pause_s": .double(pause),
                ]))
    }

    /// An event on the span (`paused`: a tracker set the request aside to serve the others).
    public func note(_ name: String, _ attributes: SpanAttributes = [:]) { span.addEvent(SpanEvent(name: name, attributes: attributes)) }

    public func failed(_ error: any Error) {
        failure = true
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "\(error)"))
    }

    public func end() {
        if !failure, let status = lastStatus, status >= 400 { span.setStatus(SpanStatus(code: .error, message: "HTTP \(status)")) }
        span.end()
    }
}
