public import Tracing

extension InstrumentationSystem {
    /// The tracer a program bootstrapped, or nil while it is the no-op one: a hot path asks once and
    /// then skips its spans altogether, so a `flowlog` that exports nothing pays a nil check.
    public static var activeTracer: (any Tracer)? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }
}

extension ServiceContext {
    /// The headers the bootstrapped instrument writes onto an outgoing request for this context
    /// (W3C's `traceparent` and `tracestate`), by lowercase name; none without a tracer or a span.
    public var traceHeaders: [String: String] {
        var headers: [String: String] = [:]
        InstrumentationSystem.instrument.inject(self, into: &headers, using: HeaderInjector())
        return headers
    }

    /// The context's W3C `traceparent` (`00-TRACE-SPAN-FLAGS`); nil without a tracer or a span.
    public var traceparent: String? { traceHeaders["traceparent"] }

    /// The context's span as a trace context to keep with events; nil without a tracer or a span.
    public var traceContext: TraceContext? {
        let headers = traceHeaders
        return headers["traceparent"].flatMap { TraceContext(traceparent: $0, tracestate: headers["tracestate"]) }
    }

    /// The trace and span ids of `traceparent`, in lowercase hex: what a log line carries to name the
    /// span it was written in.
    public var traceIdentifiers: (traceID: String, spanID: String)? {
        traceContext.map { ($0.traceID, $0.spanIDText) }
    }
}

extension ServiceContext {
    /// The context a W3C `traceparent` names, as the bootstrapped instrument reads it; nil when it
    /// names none (malformed, or no tracer).
    public static func extracted(traceparent: String) -> ServiceContext? {
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(["traceparent": traceparent], into: &context, using: HeaderExtractor())
        return context.traceparent == nil ? nil : context
    }
}

/// Reads an instrument's headers from a dictionary.
private struct HeaderExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key.lowercased()] }
}

/// Writes an instrument's headers into a dictionary.
private struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.lowercased()] = value
    }
}
