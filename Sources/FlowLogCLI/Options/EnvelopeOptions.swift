import ArgumentParser
import FlowLogBasics

/// The envelope options of every typed command (SPEC §2), and its output format.
struct EnvelopeOptions: ParsableArguments {
    @Option(help: "The stream (one session's history).")
    var stream = "default"

    @Option(help: "An idempotency key: a command whose id was accepted before is not applied again.")
    var id: String?

    @Option(
        parsing: .unconditional, help: "Refuse the command unless the stream is at this version (0: must not exist yet).",
        transform: ValueArguments.wholeNumber)
    var expectedVersion: Int?

    @Option(help: "A correlation id copied onto every event the command causes.")
    var correlationId: String?

    @Option(
        help: ArgumentHelp(
            "A W3C trace context (00-<32 hex>-<16 hex>-<2 hex>) kept with every event the command causes.", valueName: "traceparent"))
    var traceparent: String?

    @OptionGroup var format: FormatOptions

    func validate() throws { _ = try traceContext() }

    /// `--traceparent` read; a text that is not a W3C `traceparent` is refused before anything is sent.
    func traceContext() throws -> TraceContext? {
        guard let traceparent else { return nil }
        guard let context = TraceContext(traceparent: traceparent) else {
            throw ValidationError(
                "--traceparent \(TerminalText.escaped(traceparent)) is not a W3C traceparent: write 00-, 32 lowercase hex digits (the trace id), -, 16 (the span id), -, 2 (the flags), such as 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01."
            )
        }
        return context
    }

    /// These options as ArgumentParser writes them in a usage line, for the typed commands' usage,
    /// which also names their field options. Written out: making it costs ArgumentParser a walk
    /// over the options that every process would pay (a test keeps the two equal).
    static let usage =
        "[--stream <stream>] [--id <id>] [--expected-version <expected-version>] [--correlation-id <correlation-id>] [--traceparent <traceparent>] [--format <format>]"
}
