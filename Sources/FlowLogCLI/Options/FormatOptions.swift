import ArgumentParser

/// `--format text|json`: text for people, or the JSON face for programs.
struct FormatOptions: ParsableArguments {
    @Option(help: "text or json.")
    var format: OutputFormat = .text

    var isJSON: Bool { format == .json }
}
