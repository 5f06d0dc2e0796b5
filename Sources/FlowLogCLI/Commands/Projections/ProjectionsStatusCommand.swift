import ArgumentParser
import FlowLogProjections

struct ProjectionsStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show each projector's checkpoint, lag and failure; for trackers also what was delivered, retried and dead-lettered, and the last error.")
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            let folder = tracker.folder(for: logOptions)
            for status in try log.projectionStatus(of: Composition.projectorNames) {
                // The counters live beside the dead letters in the tracker folder (absent: never posted).
                let delivery =
                    status.name.hasPrefix("tracker.")
                    ? DeliveryJournal(folder: folder, tracker: String(status.name.dropFirst("tracker.".count))).recordedStats() : nil
                ProjectionRendering.status(status, delivery: delivery, format: format.format, to: output)
            }
        }
    }
}
