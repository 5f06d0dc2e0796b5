import FlowLogBasics

/// The W3C `traceparent` that `POST /commands`, a `send` line's `meta`, `--traceparent` and an
/// export's line carry: the input is the header's text. A context read has ids that are not zero
/// and is written back as version 00's 55 characters, which read as the same context.
enum TraceparentTarget {
    static let target = FuzzTarget(
        name: "traceparent",
        checks:
            "a traceparent header: read or refused, never a trap; a context read has non-zero ids and is written back as 00-…, which reads the same",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let context = TraceContext(traceparentBytes: bytes) else { return }
        fuzzCheck(context.traceHigh | context.traceLow != 0 && context.spanID != 0, "\(Array(bytes)) read with a zero id")
        let text = context.traceparent
        fuzzCheck(text.utf8.count == 55 && text.hasPrefix("00-"), "\(context) is not written as version 00")
        fuzzCheck(TraceContext(traceparent: text) == context, "\(text) does not read back as \(context)")
        fuzzCheck(context.traceID.utf8.count == 32, "the trace id \(context.traceID) is not 32 hex digits")
    }
}
