import ArgumentParser

/// `--stream S --at N`: a stream's state as it was right after a global position (now, without `--at`).
struct StreamPositionOptions: ParsableArguments {
    @Option(help: "The stream.")
    var stream = "default"

    @Option(parsing: .unconditional, help: "The state as it was right after this global position.", transform: ValueArguments.wholeNumber)
    var at: Int?
}

/// What `state` and `view` both take (`--stream`, `--at`, `--format`, `--db`) and how both begin:
/// the chosen stream's state, read and checked, handed to what the subcommand writes of it.
struct StreamStateOptions: ParsableArguments {
    @OptionGroup var position: StreamPositionOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    var stream: String { position.stream }
}

/// `--from N`: where a walk through the log starts.
struct FromPositionOptions: ParsableArguments {
    @Option(
        name: .customLong("from"), parsing: .unconditional, help: ArgumentHelp("Start at this global position (default: 1).", valueName: "from"),
        transform: ValueArguments.wholeNumber)
    var given: Int?

    /// The first position of the walk.
    var from: Int { given ?? 1 }

    func validate() throws {
        if let given, given < 1 { throw ValidationError("--from must be a position, 1 or more; got \(given).") }
    }
}
