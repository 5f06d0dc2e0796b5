import ArgumentParser

/// The envelope options of every typed command (SPEC §2), and its output format.
struct EnvelopeOptions: ParsableArguments {
    @Option(help: "The stream (one session's history).")
    var stream = "default"

    @Option(help: "An idempotency key: a command whose id was accepted before is not applied again.")
    var id: String?

    @Option(help: "Refuse the command unless the stream is at this version (0: must not exist yet).")
    var expectedVersion: Int?

    @Option(help: "A correlation id copied onto every event the command causes.")
    var correlationId: String?

    @OptionGroup var format: FormatOptions
}
