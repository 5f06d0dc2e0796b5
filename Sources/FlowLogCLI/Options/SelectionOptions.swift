import ArgumentParser
import FlowLogHistory

/// Which events an export takes: by stream, type, position and time.
struct SelectionOptions: ParsableArguments {
    @Option(help: "Only this stream's events (repeat for several).") var stream: [String] = []
    @Option(help: "Only events of this type, such as cart.orderPlaced (repeat for several).") var type: [String] = []
    @Option(parsing: .unconditional, help: "Start at this global position.", transform: ValueArguments.wholeNumber) var fromPosition: Int?
    @Option(parsing: .unconditional, help: "End at this global position (inclusive).", transform: ValueArguments.wholeNumber) var toPosition: Int?
    @Option(help: "Only events recorded at or after this time (RFC 3339, or a date alone: midnight UTC).") var since: String?
    @Option(help: "Only events recorded before this time (RFC 3339, or a date alone: midnight UTC).") var until: String?
    @Flag(help: "Include the log's own streams (flowlog:erasures, the erasure audit trail), which are left out unless named with --stream.")
    var system = false

    func validate() throws {
        if let unknown = type.first(where: { !ExportFilter.eventTypes.contains($0) }) {
            throw ValidationError(
                "--type \(TerminalText.escaped(unknown)) is not an event type; use one of: \(ExportFilter.eventTypes.joined(separator: ", ")).")
        }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, case .failure(let problem) = ValueArguments.time(value) {
                throw ValidationError("\(name) '\(TerminalText.escaped(value))' \(problem).")
            }
        }
        if let fromPosition, fromPosition < 1 { throw ValidationError("--from-position must be a position, 1 or more; got \(fromPosition).") }
        if let toPosition, toPosition < 1 { throw ValidationError("--to-position must be a position, 1 or more; got \(toPosition).") }
    }

    var filter: ExportFilter {
        var filter = ExportFilter()
        filter.streams = Set(stream)
        filter.types = Set(type)
        filter.fromPosition = fromPosition ?? 1
        filter.toPosition = toPosition
        filter.includesSystemStreams = system
        filter.since = since.flatMap { try? ValueArguments.time($0).get() }
        filter.until = until.flatMap { try? ValueArguments.time($0).get() }
        return filter
    }
}
