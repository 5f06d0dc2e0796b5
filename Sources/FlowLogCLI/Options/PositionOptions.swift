import ArgumentParser
import FlowDomain
import FlowLogProjections

/// `--stream S --at N`: a stream's state as it was right after a global position (now, without `--at`).
struct StreamPositionOptions: ParsableArguments {
    @Option(help: "The stream.")
    var stream = "default"

    @Option(parsing: .unconditional, help: "The state as it was right after this global position.", transform: ValueArguments.wholeNumber)
    var at: Int?

    /// The stream must be in the log, and `--at` one of its positions (or 0).
    func check(in scope: ReadingScope) throws {
        if let at { try scope.check(at, option: "--at", allowingZero: true) }
        try scope.check(stream: stream)
    }

    /// The chosen stream's state and version at `--at` (or now), from the log `--db` names, opened
    /// for reading and checked first. Now, the storage read model answers when it is current, and
    /// otherwise the stream is replayed from its nearest head or snapshot.
    func readState(_ logOptions: LogOptions) throws -> (state: FlowState, version: Int) {
        let log = try Composition.openLog(logOptions, access: .readOnly)
        try check(in: ReadingScope(log: log, options: logOptions))
        let current = at == nil ? try StorageProjector(store: log).currentState(of: stream) : nil
        return try current ?? log.state(ofStream: stream, throughPosition: at)
    }
}

/// What `state` and `view` both take (`--stream`, `--at`, `--format`, `--db`) and how both begin:
/// the chosen stream's state, read and checked, handed to what the subcommand writes of it.
struct StreamStateOptions: ParsableArguments {
    @OptionGroup var position: StreamPositionOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    var stream: String { position.stream }

    /// Runs `write` through `CommandExecution` with the state and version `readState` finds.
    func run(_ write: (_ state: FlowState, _ version: Int, _ output: OutputWriter) throws -> Void) throws {
        try CommandExecution.run { output in
            let (state, version) = try position.readState(logOptions)
            try write(state, version, output)
        }
    }
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
