import ArgumentParser
import FlowLogHistory
import FlowLogStore

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "List recorded events, as a table or as JSON lines, and follow new ones as they commit.",
        discussion: """
            Selects events as `export` does (--stream and --type repeatable, --from-position and \
            --to-position inclusive, --since inclusive and --until exclusive). --follow keeps printing \
            new events as they commit, each batch written at once, until Ctrl-C (SIGINT) or SIGTERM ends \
            it with exit status 0, or --limit or --to-position is reached.
            """)

    /// The log's text face is a table.
    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var start: FromPositionOptions
    @Option(parsing: .unconditional, help: "At most this many events.", transform: ValueArguments.wholeNumber) var limit: Int?
    @Flag(help: "Keep printing new events as they commit, until interrupted.") var follow = false
    @Option(help: "table or json (one event a line, the export envelope).") var format: Format = .table
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more; got \(limit).") }
        if start.given != nil, selection.fromPosition != nil { throw ValidationError("Give one of --from and --from-position: they are the same.") }
    }

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            let scope = try ReadingScope(log: log, options: logOptions)
            var filter = selection.filter
            if let from = start.given ?? selection.fromPosition {
                try scope.check(from, option: start.given != nil ? "--from" : "--from-position", allowingNext: follow)
                filter.fromPosition = from
            }
            // Following, the last position may be one still to come.
            if let to = filter.toPosition, !follow { try scope.check(to, option: "--to-position") }
            if !follow { for stream in selection.stream { try scope.check(stream: stream) } }
            if follow { Interruption.hold() }

            var walk = LogWalk(filter: filter, limit: limit, format: format)
            // Up to the last position as of now: following goes on from the next one, so no event
            // committed meanwhile falls between the two.
            let now = try log.lastPosition()
            try walk.show(log, from: filter.fromPosition, through: now, to: output)
            guard follow else {
                if format == .table { output.lines(walk.table.lines()) }
                return
            }
            output.lines(walk.table.takeLines(withHeader: format == .table))
            output.flush()
            var next = max(filter.fromPosition, now + 1)
            while !walk.isDone(next: next), !Interruption.requested {
                let last = try log.waitForEvents(after: next - 1, timeout: 0.2)
                guard last >= next else { continue }
                try walk.show(log, from: next, through: last, to: output)
                if format == .table { output.lines(walk.table.takeLines(withHeader: false)) }
                output.flush()
                next = last + 1
            }
        }
    }
}

/// The events `log` shows: those the filter accepts, up to the limit, as JSON lines or table rows.
private struct LogWalk {
    let filter: ExportFilter
    let limit: Int?
    let format: LogCommand.Format
    let table = EventTable()
    private(set) var shown = 0

    init(filter: ExportFilter, limit: Int?, format: LogCommand.Format) {
        self.filter = filter
        self.limit = limit
        self.format = format
    }

    /// Whether following can stop: the limit or the last position asked for is reached.
    func isDone(next: Int) -> Bool {
        if let limit, shown >= limit { return true }
        if let to = filter.toPosition, next > to { return true }
        return false
    }

    /// Shows the accepted events at positions `from...through` (to the end, without `through`).
    /// One stream alone is read through its index; otherwise the log is walked in position order.
    mutating func show(_ log: any EventLog, from: Int, through: Int?, to output: OutputWriter) throws {
        let last = [through, filter.toPosition].compactMap { $0 }.min()
        if let last, last < from { return }
        var walk = self
        let body: (RecordedEvent) throws -> Bool = { record in
            if let limit = walk.limit, walk.shown >= limit { return false }
            guard record.position >= from, walk.filter.accepts(record) else { return true }
            switch walk.format {
            case .json: output.json { FlowJSON.writeEvent(record, into: &$0) }
            case .table: walk.table.add(record)
            }
            walk.shown += 1
            return true
        }
        if filter.streams.count == 1, let stream = filter.streams.first {
            try log.forEachEvent(inStream: stream, throughPosition: last, body)
        } else {
            try log.forEachEvent(from: from, through: last, body)
        }
        self = walk
    }
}
