import ArgumentParser

/// Where `replay` and `bisect` read events: the log, or an NDJSON export given with --file.
struct SourceOptions: ParsableArguments {
    @Option(help: "Replay this NDJSON export directly instead of the log (no import needed).")
    var file: String?

    @Flag(
        help: ArgumentHelp(
            "With --file: accept missing positions and versions (a file of some streams or types).",
            discussion: "Repeated events and events that go back are refused all the same."))
    var allowGaps = false

    func validate() throws {
        if allowGaps, file == nil { throw ValidationError("--allow-gaps goes with --file FILE (a log has no gaps).") }
    }
}
