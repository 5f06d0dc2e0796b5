import ArgumentParser

/// Where `replay` and `bisect` read events: the log, or an NDJSON export given with --file.
struct SourceOptions: ParsableArguments {
    @Option(help: "Replay this NDJSON export directly instead of the log (no import needed).")
    var file: String?
}
