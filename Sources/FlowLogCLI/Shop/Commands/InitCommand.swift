import ArgumentParser
import FlowDomain

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create an empty log, in the newest log schema, with its default currency.",
        discussion: """
            Every writing command creates the log it needs, in USD; `init` is for a log in another \
            currency. The currency is what `cart.addProduct` takes when a command names none; it is \
            fixed once the log holds an event. On a log that exists, `init` prints its settings, and \
            sets the currency only while the log is empty.
            """)

    @Option(help: ArgumentHelp("The log's default currency: three capital letters (ISO 4217), such as EUR.", valueName: "code"))
    var currency: String?
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if let currency, !FieldChecks.isCurrencyCode(currency) {
            throw ValidationError("--currency must be three capital letters, such as EUR or USD; got \(TerminalText.escaped(currency)).")
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readWriteCreating)
            let location = log.location
            let settings = try log.updateSettings { settings, isEmpty in
                guard let currency, currency != settings.defaultCurrency else { return settings }
                guard isEmpty else {
                    throw CLIFailure(
                        "The log at \(location) holds events in \(settings.defaultCurrency), and a log's currency is fixed once it holds one; create a new log for \(currency) (a command may still name its own currency). Nothing was changed.",
                        .usage)
                }
                var changed = settings
                changed.defaultCurrency = currency
                return changed
            }
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("log")
                    json.string(location)
                    json.key("logSchema")
                    json.int(settings.logSchema)
                    json.key("currency")
                    json.string(settings.defaultCurrency)
                    json.endObject()
                }
            } else {
                output.line("\(location): log schema \(settings.logSchema), default currency \(settings.defaultCurrency)")
            }
        }
    }
}
