import ArgumentParser
import FlowLogBasics
import FlowLogProjections

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the fields of every command kind or event kind, from their declarations.",
        subcommands: [CommandKindsReference.self, EventKindsReference.self, TrackerMappingReference.self])

    private static func write(_ format: FormatOptions, json: (inout JSONWriter) -> Void, text: () -> String) throws {
        try CommandExecution.run { output in
            if format.isJSON { output.json(json) } else { output.lines(of: text()) }
        }
    }

    struct CommandKindsReference: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "commands",
            abstract: "Every command kind: its type, actor, command line and fields (with their options).")
        @OptionGroup var format: FormatOptions
        @OptionGroup var logOptions: LogOptions

        func run() throws {
            try SchemaCommand.write(format, json: KindSchema.commandsJSON, text: KindSchema.commandsText)
        }
    }

    struct EventKindsReference: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events",
            abstract: "Every event kind: its type, binary tag and fields (with their CSV columns).")
        @OptionGroup var format: FormatOptions
        @OptionGroup var logOptions: LogOptions

        func run() throws {
            try SchemaCommand.write(format, json: KindSchema.eventsJSON, text: KindSchema.eventsText)
        }
    }

    struct TrackerMappingReference: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "trackers",
            abstract: "Every event kind's Segment calls and GA4 events (the Markdown table of docs/analytics.md), from the trackers' mappings.")
        @Option(help: "The ISO 4217 currency of every amount.") var currency = "USD"

        func validate() throws {
            if let problem = AnalyticsSettings.problem(withCurrency: currency) {
                throw ValidationError("--currency '\(TerminalText.escaped(currency))' \(problem).")
            }
        }

        func run() throws {
            try CommandExecution.run { output in output.lines(of: MappingTable.markdown(settings: AnalyticsSettings(currency: currency))) }
        }
    }
}
