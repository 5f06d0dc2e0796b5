import ArgumentParser
import FlowLog
import FlowLogBasics
import FlowLogSystem

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

    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let descriptor: Int32
            if let file, file != "-" {
                descriptor = open(file, O_RDONLY)
                guard descriptor >= 0 else {
                    throw FlowLogError.unreadableInput(path: file, errorNumber: errno)
                }
            } else {
                descriptor = STDIN_FILENO
            }
            defer { if descriptor != STDIN_FILENO { close(descriptor) } }
            // Created by the first accepted command: input that appends nothing creates nothing.
            let log = try LogCreatedOnFirstAppend(logOptions)
            // Each batch's answers are written through as soon as its commit is durable.
            let session = SendSession(processor: Composition.processor(for: log), output: output.sink)
            let summary = try session.run(reader: LineReader(fileDescriptor: descriptor))
            if summary.rejected > 0 { throw CLIFailure(silently: .rejected) }
        }
    }
}
