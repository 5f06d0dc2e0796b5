import ArgumentParser
import FlowLogBasics
import FlowLogProjections

extension SchemaCommand {
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
