import ArgumentParser

/// `--stream S --at N`: a stream's state as it was right after a global position (now, without `--at`).
struct StreamPositionOptions: ParsableArguments {
    @Option(help: "The stream.")
    var stream = "default"

    @Option(help: "The state as it was right after this global position.")
    var at: Int?
}

/// `--from N`: where a walk through the log starts.
struct FromPositionOptions: ParsableArguments {
    @Option(help: "Start at this global position.")
    var from = 1

    func validate() throws {
        if from < 1 { throw ValidationError("--from must be a position, 1 or more.") }
    }
}
