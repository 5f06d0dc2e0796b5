import ArgumentParser
import FlowLogBasics
import FlowLogHistory

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the whole log: its hash chain, the contiguity of positions and versions, and its indexes.",
        discussion: """
            Every problem is named with its position and stream (a flipped byte, a removed, reordered or \
            altered event, an index that points elsewhere). Exit status 0 when the log is intact, 65 when \
            anything is wrong. Progress goes to stderr when it is a terminal.
            """)

    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            let report = try log.checkIntegrity(progress: Progress(label: "verify", total: try log.lastPosition()))
            IntegrityRendering.write(report, location: log.location, format: format.format, to: output)
            if !report.isReadable { throw CLIFailure(silently: .dataError) }
        }
    }
}
