import ArgumentParser
import FlowLog

struct ProjectionsStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show each projector's checkpoint, lag and failure, if any.")
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            for status in try log.projectionStatus(of: Composition.projectorNames) {
                ProjectionRendering.status(status, format: format.format, to: output)
            }
        }
    }
}
