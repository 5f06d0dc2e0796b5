import ArgumentParser
import FlowLog
#if canImport(Glibc)
import Glibc
#endif

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send many commands: one JSON object a line in, one JSON answer a line out.",
        discussion: """
        Reads FILE, or standard input when FILE is absent or '-'. Each answer is written only after the \
        command's events are on disk. It goes on after a rejected line; the exit status is 0 when every \
        line was accepted (duplicates included) and 1 when any was rejected. Lines longer than 1 MiB are \
        answered as malformed.
        """)

    @Argument(help: "The file of commands (default: standard input).")
    var file: String?

    @OptionGroup var global: GlobalOptions

    func run() throws {
        var rejected = false
        try reportingFailures {
            let descriptor: Int32
            if let file, file != "-" {
                descriptor = open(file, O_RDONLY)
                guard descriptor >= 0 else {
                    throw CLIFailure("Cannot read \(file): \(String(cString: strerror(errno))). Check the path.", exitCode: CLIFailure.noInput)
                }
            } else {
                descriptor = STDIN_FILENO
            }
            defer { if descriptor != STDIN_FILENO { close(descriptor) } }
            let log = try Composition.openLog(global, access: .readWriteCreating)
            let session = SendSession(processor: Composition.processor(for: log), output: FileDescriptorOutput())
            let summary = try session.run(reader: LineReader(fileDescriptor: descriptor))
            rejected = summary.rejected > 0
        }
        if rejected { throw ExitCode(CLIFailure.rejected) }
    }
}

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the projected state of one stream, now or as of a global position.")

    @Option(help: "The stream.") var stream = "default"
    @Option(help: "The state as it was right after this global position.") var at: Int?
    @Option(help: "text or json.") var format: OutputFormat = .text
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            let log = try Composition.openLog(global, access: .readOnly)
            if let at {
                let last = try log.lastPosition()
                guard at >= 0, at <= last else {
                    throw CLIFailure("--at \(at) is outside the log, which holds positions 1 through \(last); choose a position in that range (0 for the empty state).", exitCode: CLIFailure.usage)
                }
            }
            // The storage read model answers when it is current; otherwise the stream is replayed.
            let current = at == nil ? try StorageProjector(store: log).currentState(of: stream) : nil
            let (state, version) = try current ?? log.state(ofStream: stream, throughPosition: at)
            switch format {
            case .json:
                try FlowJSON.writeState(state, stream: stream, version: version, to: FileDescriptorOutput())
            case .text: Output.line(TextRendering.state(state, stream: stream, version: version))
            }
        }
    }
}

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "List recorded events, as a table or as JSON lines.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    @Option(help: "Only this stream's events.") var stream: String?
    @Option(help: "Start at this global position.") var from = 1
    @Option(help: "At most this many events.") var limit: Int?
    @Option(help: "table or json (one event a line, the export envelope).") var format: Format = .table
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more.") }
        if from < 1 { throw ValidationError("--from must be a position, 1 or more.") }
    }

    func run() throws {
        try reportingFailures {
            let log = try Composition.openLog(global, access: .readOnly)
            var shown = 0
            let table = EventTable()
            let body: (RecordedEvent) throws -> Bool = { record in
                if let limit, shown >= limit { return false }
                if record.position < from { return true }
                switch format {
                case .json: Output.line(FlowJSON.event(record))
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
            if format == .table { Output.line(table.render()) }
        }
    }
}
