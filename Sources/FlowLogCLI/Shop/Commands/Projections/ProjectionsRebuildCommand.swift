import ArgumentParser
import FlowLogProjections
import FlowLogStore

struct ProjectionsRebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rebuild", abstract: "Reset one projector and replay it from position 1.")
    @Argument(help: "storage, tracker.segment or tracker.ga4.") var name: String
    @Flag(help: "For a tracker: send again the calls its collector already acknowledged.") var resend = false
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if name == "tracker.snake" {
            throw ValidationError(
                "The snake tracker is gone: its format was FlowLog's own, and no collector took it. GA4's Measurement Protocol replaces it: use tracker.ga4 (docs/analytics.md)."
            )
        }
        guard Composition.projectorNames.contains(name) else {
            throw ValidationError(
                "There is no projector '\(TerminalText.escaped(name))'; the projectors are \(Composition.projectorNames.joined(separator: ", ")).")
        }
        if resend, !name.hasPrefix("tracker.") { throw ValidationError("--resend goes with a tracker (tracker.segment or tracker.ga4).") }
    }

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readWrite)
            // A split tracker is rebuilt part by part, each under its own lease.
            let parts = try Composition.projectors(log, tracker: tracker, options: logOptions, partitions: Composition.trackerPartitions(of: log))
                .filter { ProjectorPartitioning.isPart($0.name, of: name) }
            let locks = try parts.map { try log.leaseProjector($0.name) }
            defer { withExtendedLifetime(locks) {} }
            var handled = 0
            for projector in parts {
                if let tracker = projector as? TrackerProjector {
                    try tracker.reset(resending: resend)
                } else {
                    try projector.reset()
                }
                handled = max(handled, try ProjectionRunner(log: log).catchUp(projector))
            }
            let isTracker = parts.first is TrackerProjector
            let acknowledged = try parts.map { try log.acknowledgedPosition(of: $0.name) }.min() ?? 0
            ProjectionRendering.rebuilt(name, handled: handled, notResentThrough: isTracker ? acknowledged : 0, format: format.format, to: output)
            if isTracker, acknowledged > 0, !format.isJSON {
                Diagnostics.write(
                    "\(name): the calls of positions 1 through \(acknowledged), which the collector had acknowledged, were not sent again; give --resend to send them again."
                )
            }
        }
    }
}
