import ArgumentParser
import FlowLog
#if canImport(Glibc)
import Glibc
#endif

extension EventExport.Format: ExpressibleByArgument {}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write events as NDJSON (the full envelope) or CSV (a flat, typed schema) for analysts' tools.",
        discussion: """
        The export is one consistent snapshot of the log, even while other processes append, and runs in \
        constant memory. Progress goes to stderr when it is a terminal. `--format csv --schema` prints \
        the CSV columns with their SQL types. --since is inclusive and --until exclusive (RFC 3339 times).
        """)

    @Option(help: "ndjson or csv.") var format: EventExport.Format = .ndjson
    @Option(help: "Only this stream's events (repeat for several).") var stream: [String] = []
    @Option(help: "Only events of this type, such as cart.orderPlaced (repeat for several).") var type: [String] = []
    @Option(help: "Start at this global position.") var fromPosition: Int?
    @Option(help: "End at this global position (inclusive).") var toPosition: Int?
    @Option(help: "Only events recorded at or after this time (RFC 3339).") var since: String?
    @Option(help: "Only events recorded before this time (RFC 3339).") var until: String?
    @Option(name: .shortAndLong, help: ArgumentHelp(
        "Write to this file (default: standard output); it appears only when complete.",
        discussion: "A FIFO, a character device or - is written through; a folder or a path inside a log is refused.")) var output: String?
    @Flag(help: "Let --output replace an existing file.") var force = false
    @Flag(help: "Print the CSV columns and their types instead of exporting.") var schema = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let unknown = type.first(where: { !ExportFilter.eventTypes.contains($0) }) {
            throw ValidationError("--type \(unknown) is not an event type; use one of: \(ExportFilter.eventTypes.joined(separator: ", ")).")
        }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, Timestamp(rfc3339: value) == nil {
                throw ValidationError("\(name) '\(value)' is not an RFC 3339 time; write it like 2026-11-21T13:25:17Z.")
            }
        }
        if let fromPosition, fromPosition < 1 { throw ValidationError("--from-position must be 1 or more.") }
        if let toPosition, toPosition < 1 { throw ValidationError("--to-position must be 1 or more.") }
        if force, output == nil { throw ValidationError("--force goes with --output FILE.") }
    }

    func run() throws {
        if schema {
            Output.line(CSVSchema.description)
            return
        }
        try reportingFailures {
            var filter = ExportFilter()
            filter.streams = Set(stream)
            filter.types = Set(type)
            filter.fromPosition = fromPosition ?? 1
            filter.toPosition = toPosition
            filter.since = since.flatMap(Timestamp.init(rfc3339:))
            filter.until = until.flatMap(Timestamp.init(rfc3339:))
            let log = try Composition.openLog(global, access: .readOnly)
            let progress = Progress(label: "export", total: try log.lastPosition())
            guard let output else {
                try EventExport(format: format, filter: filter).run(from: log, to: FileDescriptorOutput(), progress: progress)
                return
            }
            let file = try OutputFile(try OutputTarget.resolve(output, force: force))
            try EventExport(format: format, filter: filter).run(from: log, to: file, progress: progress)
            try file.commit()
        }
    }
}

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load an NDJSON export into a log, keeping positions, versions and event ids.",
        discussion: """
        All or nothing: a line that is not an exported event, or that would break the contiguity of \
        positions or stream versions, or repeat an event id already in the log, stops the import with \
        its line number, and nothing of the import is committed. Progress goes to stderr when it is a terminal.
        """)

    @Argument(help: "The NDJSON file ('-' for standard input).") var file: String
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            let descriptor = file == "-" ? STDIN_FILENO : open(file, O_RDONLY)
            guard descriptor >= 0 else {
                throw CLIFailure("Cannot read \(file): \(String(cString: strerror(errno))). Check the path.", exitCode: CLIFailure.noInput)
            }
            defer { if descriptor != STDIN_FILENO { close(descriptor) } }
            var info = stat()
            let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
            var existing = stat()
            let logExisted = stat(global.logPath, &existing) == 0
            let log = try Composition.openLog(global, access: .readWriteCreating)
            let progress = Progress(label: "import", total: max(size / 200, 1), enabled: isatty(STDERR_FILENO) == 1 && size > 0)
            do {
                let count = try log.importNDJSON(from: LineReader(fileDescriptor: descriptor), expectedBytes: size, progress: progress)
                Output.line("imported \(count) events into \(log.location)")
            } catch {
                // A refused import into a new log leaves no empty log behind.
                if !logExisted {
                    for file in ["data.mdb", "lock.mdb"] { unlink(global.logPath + "/" + file) }
                    rmdir(global.logPath)
                }
                throw error
            }
        }
    }
}
