import ArgumentParser
import FlowLogBasics
import FlowLogHistory
import FlowLogSystem

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
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let descriptor = file == "-" ? STDIN_FILENO : open(file, O_RDONLY)
            guard descriptor >= 0 else {
                throw FlowLogError.unreadableInput(path: file, errorNumber: errno)
            }
            defer { if descriptor != STDIN_FILENO { close(descriptor) } }
            var info = stat()
            let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
            let logExisted = Composition.logExists(logOptions)
            let progress = Progress(label: "import", total: max(size / 200, 1), enabled: isatty(STDERR_FILENO) == 1 && size > 0)
            do {
                let (count, location) = try Composition.importNDJSON(
                    logOptions, from: LineReader(fileDescriptor: descriptor),
                    expectedBytes: size, progress: progress)
                if format.isJSON {
                    output.json { json in
                        json.beginObject()
                        json.key("imported")
                        json.int(count)
                        json.key("log")
                        json.string(location)
                        json.endObject()
                    }
                } else {
                    output.line("imported \(count) events into \(location)")
                }
            } catch {
                // A refused import into a new log leaves no empty log behind.
                if !logExisted { Composition.removeCreatedLog(logOptions) }
                throw error
            }
        }
    }
}
