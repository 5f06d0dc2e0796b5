import ArgumentParser

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

/// `--format text|json`: text for people, or the JSON face for programs.
struct FormatOptions: ParsableArguments {
    @Option(help: "text or json.")
    var format: OutputFormat = .text

    var isJSON: Bool { format == .json }
}
