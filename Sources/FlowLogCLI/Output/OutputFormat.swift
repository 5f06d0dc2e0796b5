import ArgumentParser

/// What a subcommand writes: text for people, or the JSON face for programs (`--format`).
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
