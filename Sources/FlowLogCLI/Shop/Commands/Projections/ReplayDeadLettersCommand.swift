import ArgumentParser
import FlowLogProjections
import FlowLogStore

/// Sends a tracker's dead letters again, once what refused them is mended (a write key, a
/// mapping): those accepted now count as delivered, those refused again go back to the file.
struct ReplayDeadLettersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay-dead-letters",
        abstract: "Send a tracker's dead letters to its endpoint again (those refused again stay dead letters).")
    @Argument(help: "segment or ga4 (tracker.segment, tracker.ga4).") var tracker: String
    @OptionGroup var trackerOptions: TrackerOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    private var serviceName: String { tracker.hasPrefix("tracker.") ? String(tracker.dropFirst("tracker.".count)) : tracker }

    func validate() throws {
        guard ["segment", "ga4"].contains(serviceName) else {
            throw ValidationError("There is no tracker '\(TerminalText.escaped(tracker))'; the trackers are segment and ga4.")
        }
        let option = serviceName == "segment" ? "--segment-url" : "--ga4-url"
        if (serviceName == "segment" ? trackerOptions.segmentURL : trackerOptions.ga4URL) == nil {
            throw ValidationError(
                "Replaying dead letters posts them: give the tracker's endpoint with \(option) (and its credentials, as for projections run).")
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            let folder = try Composition.trackerFolder(trackerOptions, options: logOptions)
            let name = "tracker." + serviceName
            let log = try Composition.openLog(logOptions, access: .readWrite)
            // The projector's runners post to the same endpoint (each part of a split tracker its
            // own share); two senders would interleave.
            let lock = try Composition.trackerPartNames(of: log).filter { ProjectorPartitioning.isPart($0, of: name) }
                .map { try log.leaseProjector($0) }
            defer {
                withExtendedLifetime(lock) {}
                HTTPTransports.shutDown()
            }
            guard let service = trackerOptions.services().first(where: { $0.name == serviceName }) else { return }
            let journal = DeliveryJournal(folder: folder, tracker: serviceName)
            let before = journal.stats()
            let sink = try Composition.sink(for: service, tracker: trackerOptions, folder: folder)
            let replayed = try journal.takeDeadLetters { messages in try sink.deliver(messages, of: service) { _ in } }
            let after = journal.stats()
            ProjectionRendering.replayed(
                name, letters: replayed, delivered: after.delivered - before.delivered,
                deadLettered: after.deadLettered - before.deadLettered, format: format.format, to: output)
        }
    }
}
