import ArgumentParser
import FlowLog

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "List recorded events, as a table or as JSON lines.")

    /// The log's text face is a table.
    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    @Option(help: "Only this stream's events.") var stream: String?
    @OptionGroup var start: FromPositionOptions
    @Option(parsing: .unconditional, help: "At most this many events.", transform: ValueArguments.wholeNumber) var limit: Int?
    @Option(help: "table or json (one event a line, the export envelope).") var format: Format = .table
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more; got \(limit).") }
    }

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            let scope = try ReadingScope(log: log, options: logOptions)
            if let given = start.given { try scope.check(given, option: "--from") }
            if let stream { try scope.check(stream: stream) }
            let from = start.from
            var shown = 0
            let table = EventTable()
            let body: (RecordedEvent) throws -> Bool = { record in
                if let limit, shown >= limit { return false }
                if record.position < from { return true }
                switch format {
                case .json: output.json { FlowJSON.writeEvent(record, into: &$0) }
                case .table: table.add(record)
                }
                shown += 1
                return true
            }
            if let stream {
                try log.forEachEvent(inStream: stream, throughPosition: nil, body)
            } else {
                try log.forEachEvent(from: from, through: nil, body)
            }
            if format == .table { output.lines(table.lines()) }
        }
    }
}
