import ArgumentParser
import FlowLog

/// Which events an export takes: by stream, type, position and time.
struct SelectionOptions: ParsableArguments {
    @Option(help: "Only this stream's events (repeat for several).") var stream: [String] = []
    @Option(help: "Only events of this type, such as cart.orderPlaced (repeat for several).") var type: [String] = []
    @Option(help: "Start at this global position.") var fromPosition: Int?
    @Option(help: "End at this global position (inclusive).") var toPosition: Int?
    @Option(help: "Only events recorded at or after this time (RFC 3339).") var since: String?
    @Option(help: "Only events recorded before this time (RFC 3339).") var until: String?

    func validate() throws {
        if let unknown = type.first(where: { !ExportFilter.eventTypes.contains($0) }) {
            throw ValidationError("--type \(TerminalText.escaped(unknown)) is not an event type; use one of: \(ExportFilter.eventTypes.joined(separator: ", ")).")
        }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, Timestamp(rfc3339: value) == nil {
                throw ValidationError("\(name) '\(TerminalText.escaped(value))' is not an RFC 3339 time; write it like 2026-11-21T13:25:17Z.")
            }
        }
        if let fromPosition, fromPosition < 1 { throw ValidationError("--from-position must be 1 or more.") }
        if let toPosition, toPosition < 1 { throw ValidationError("--to-position must be 1 or more.") }
    }

    var filter: ExportFilter {
        var filter = ExportFilter()
        filter.streams = Set(stream)
        filter.types = Set(type)
        filter.fromPosition = fromPosition ?? 1
        filter.toPosition = toPosition
        filter.since = since.flatMap(Timestamp.init(rfc3339:))
        filter.until = until.flatMap(Timestamp.init(rfc3339:))
        return filter
    }
}
