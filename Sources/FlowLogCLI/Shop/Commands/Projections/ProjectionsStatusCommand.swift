import ArgumentParser
import FlowLogProjections
import FlowLogStore

struct ProjectionsStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show each projector's checkpoint, lag, failure and the process running it; for trackers also what was delivered, retried and dead-lettered, and the last error, and each part of a split tracker."
    )
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            let folder = tracker.folder(for: logOptions)
            for standing in try ProjectorStanding.read(Composition.projectorNames, in: log) {
                let name = standing.status.name
                // The counters live beside the dead letters in the tracker folder (absent: never
                // posted); a split tracker's parts share them.
                let delivery =
                    name.hasPrefix("tracker.")
                    ? DeliveryJournal(folder: folder, tracker: String(name.dropFirst("tracker.".count))).recordedStats() : nil
                ProjectionRendering.status(standing, delivery: delivery, format: format.format, to: output)
            }
        }
    }
}
