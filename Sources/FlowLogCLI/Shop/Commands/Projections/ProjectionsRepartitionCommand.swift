import ArgumentParser
import FlowLogBasics
import FlowLogProjections
import FlowLogStore

/// `projections repartition --partitions N`: changes how many parts the trackers are split into,
/// while runners go on (`Repartitioning`).
struct ProjectionsRepartitionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repartition",
        abstract: "Split the trackers into another number of parts, without a gap or a repeat.",
        discussion:
            "Running runners (projections run --follow) hand the trackers' old parts over; this command waits for them, delivers what each old part still has up to the furthest of them, starts the new parts there, and the runners take the new parts within a second. A runner that runs a tracker unsplit must be stopped first. Interrupted, it changes nothing."
    )
    @Option(help: ArgumentHelp("How many parts each tracker is split into: 1 (not split) to 64.", valueName: "n"))
    var partitions: Int
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        guard (1...ProjectorPartitioning.maximumCount).contains(partitions) else {
            throw ValidationError("--partitions \(partitions) is out of range: give 1 to \(ProjectorPartitioning.maximumCount).")
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            defer { HTTPTransports.shutDown() }
            let log = try Composition.openLog(logOptions, access: .readWrite)
            Interruption.hold()
            for name in Composition.trackerNames {
                let before = try ProjectorPartitioning.count(of: name, in: log)
                var told = false
                let start = try Repartitioning.move(
                    name, to: partitions, in: log,
                    make: { names in
                        try Composition.projectors(log, tracker: tracker, options: logOptions, partitions: Composition.trackerPartitions(of: log))
                            .filter { names.contains($0.name) }
                    },
                    waiting: { busy in
                        if !told {
                            let holder = busy.pid.map { "process \($0)" } ?? "another process"
                            Diagnostics.write("projections: waiting for \(holder) to hand \(busy.projector) over")
                            told = true
                        }
                        return !Interruption.requested
                    })
                if Interruption.requested {
                    throw CLIFailure("Interrupted while waiting for the runners; nothing was changed for \(name); run it again.", .busy)
                }
                ProjectionRendering.repartitioned(name, from: before, to: partitions, startingAfter: start, format: format.format, to: output)
            }
        }
    }
}
