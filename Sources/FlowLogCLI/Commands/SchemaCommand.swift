import ArgumentParser
import FlowLogBasics

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the fields of every command kind or event kind, from their declarations.",
        subcommands: [CommandKindsReference.self, EventKindsReference.self] + Program.schemaSubcommands)

    static func write(_ format: FormatOptions, json: (inout JSONWriter) -> Void, text: () -> String) throws {
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
}
