import ArgumentParser

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

    @OptionGroup var format: FormatOptions

    /// These options as ArgumentParser writes them in a usage line, for the typed commands' usage,
    /// which also names their field options. Written out: making it costs ArgumentParser a walk
    /// over the options that every process would pay (a test keeps the two equal).
    static let usage =
        "[--stream <stream>] [--id <id>] [--expected-version <expected-version>] [--correlation-id <correlation-id>] [--format <format>]"
}
