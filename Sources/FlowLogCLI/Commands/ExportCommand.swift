public import ArgumentParser
import FlowLogBasics
import FlowLogHistory

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
    @OptionGroup var selection: SelectionOptions
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Write to this file (default: standard output); it appears only when complete.",
            discussion: "A FIFO, a character device or - is written through; a folder or a path inside a log is refused.")) var output: String?
    @Flag(help: "Let --output replace an existing file.") var force = false
    @Flag(help: "Print the CSV columns and their types instead of exporting.") var schema = false
    @Flag(
        help:
            "Leave forgotten events out of an NDJSON export instead of writing them as tombstones (\"forgotten\":true, no stream, no data), which import takes back. CSV always leaves them out."
    )
    var skipForgotten = false
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if force, output == nil { throw ValidationError("--force goes with --output FILE.") }
    }

    func run() throws {
        try CommandExecution.run { standardOutput in
            if schema {
                standardOutput.lines(of: CSVSchema.description)
                return
            }
            let log = try Composition.openLog(logOptions, access: .readOnly)
            let export = EventExport(format: format, filter: selection.filter, includesForgotten: !skipForgotten)
            let progress = Progress(label: "export", total: try log.lastPosition())
            guard let output else {
                // In blocks of about 1 MiB, each written through as it is full.
                try export.run(from: log, to: standardOutput.sink, progress: progress)
                return
            }
            let file = try OutputFile(try OutputTarget.resolve(output, force: force))
            try export.run(from: log, to: file, progress: progress)
            try file.commit()
        }
    }
}
