import ArgumentParser
import FlowLog

struct ProjectionsRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Catch every projector up with the log (and keep following it with --follow).")
    @Flag(help: "Keep following new appends until interrupted.") var follow = false
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readWrite)
            let runner = ProjectionRunner(log: log)
            let projectors = try Composition.projectors(log, tracker: tracker, options: logOptions)
            // Held until this process ends: one runner per projector.
            let locks = try projectors.map { try log.leaseProjector($0.name) }
            defer { withExtendedLifetime(locks) {} }
            if follow {
                // Ctrl-C or SIGTERM stops it between two catch-ups, with every checkpoint written,
                // and it reports as a run without --follow does (exit 0). The log wakes it on a new
                // event (LISTEN/NOTIFY, or LMDB's own check), so the half second is only how long
                // a stop may wait.
                Interruption.hold()
                try runner.follow(projectors, pollEvery: 0.5) { Interruption.requested }
            }
            for projector in projectors {
                let handled = try runner.catchUp(projector)
                ProjectionRendering.caughtUp(projector.name, handled: handled, checkpoint: try projector.checkpoint(), format: format.format, to: output)
            }
        }
    }
}
