import ArgumentParser
import Deciding
import FlowLog
import FlowLogBasics
import FlowLogProjections
import FlowLogStore

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Play a scripted shopping and onboarding session through the whole pipeline.",
        discussion: "Each run uses a new stream (demo-1, demo-2, …) unless --stream names one.")

    @Option(help: "The stream to play the session into (default: the first unused demo-N).")
    var stream: String?

    @Flag(help: "Print the script as NDJSON commands (for `flowlog send`) instead of playing it.")
    var printScript = false

    @OptionGroup var format: FormatOptions

    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if let stream, !Identifier.isValid(stream) {
            throw ValidationError("--stream '\(TerminalText.escaped(stream))' is not an identifier: 1 to 64 characters of A-Z a-z 0-9 . _ : -.")
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            if printScript {
                for envelope in DemoScript.commands(stream: stream ?? "demo-1") { output.json { WireCommand.encode(envelope, into: &$0) } }
                return
            }
            try play(output)
        }
    }

    private func play(_ output: OutputWriter) throws {
        let log = try Composition.openLog(logOptions, access: .readWriteCreating)
        let used = Set(try log.streams().map(\.stream))
        if let stream, used.contains(stream) {
            // Its commands would be duplicates, but the one the rules refused would now be decided
            // afresh and add a stray event: the session is played into a new stream only.
            throw CLIFailure(
                "Stream \(stream) already has \(try log.version(of: stream)) events; the demo plays its session into a stream of its own. Leave --stream out (the first unused demo-N), or name a stream that has no events; nothing was written.",
                .usage)
        }
        let stream = stream ?? (1...).lazy.map { "demo-\($0)" }.first { !used.contains($0) }!
        let processor = Composition.processor(for: log)
        // Wired before the first command, so a tracker folder that is refused stops the demo before it plays.
        let projectors = try Composition.projectors(log, tracker: tracker, options: logOptions)
        let services = tracker.services()
        let json = format.isJSON
        if !json {
            output.line("FlowLog demo: a session in stream \(stream) of the log \(log.location)")
            output.line("")
        }
        for (index, envelope) in DemoScript.commands(stream: stream).enumerated() {
            let before = try processor.state(of: stream).state
            let outcome = try processor.handle(envelope)
            let (after, version) = try processor.state(of: stream)
            var recorded: [RecordedEvent] = []
            if case .accepted(let acceptance) = outcome, !acceptance.events.isEmpty {
                recorded = try log.events(from: acceptance.receipt.firstPosition, limit: acceptance.events.count)
            }
            let calls = try DemoText.calls(recorded, services: services, log: log)
            if json {
                output.json {
                    DemoJSON.step(
                        number: index + 1, envelope: envelope, outcome: outcome, recorded: recorded, calls: calls, after: after, version: version,
                        into: &$0)
                }
                continue
            }
            output.lines(DemoText.step(number: index + 1, envelope: envelope, outcome: outcome, before: before, after: after))
            if !recorded.isEmpty {
                for call in calls { output.line("      tracker \(call.service): \(call.call)") }
                output.line("      " + ViewText.summary(after))
            }
        }
        let (state, version) = try processor.state(of: stream)
        if !json {
            output.line("")
            output.line("Final state of \(stream) (version \(version)):")
            output.line("")
            output.lines(StateText.lines(state, stream: stream, version: version))
            output.line("")
            output.line("What the app shows now (flowlog view --stream \(stream)):")
            output.lines(ViewText.lines(cart: ViewProjector.cart(state), screen: ViewProjector.screen(state.navigation)))
        }
        let runner = ProjectionRunner(log: log)
        var results: [(name: String, result: DemoJSON.ProjectorResult)] = []
        for projector in projectors {
            do {
                let lock = try log.leaseProjector(projector.name)
                try runner.catchUp(projector)
                withExtendedLifetime(lock) {}
                results.append((projector.name, .caughtUp(checkpoint: try projector.checkpoint())))
            } catch FlowLogError.busy(let busy) {
                // Its runner delivers these events; a second delivery would duplicate them.
                results.append((projector.name, .runBy(pid: busy.pid)))
            }
        }
        let folder = tracker.folder(for: logOptions)
        let events = try log.lastPosition()
        if json {
            output.json {
                DemoJSON.summary(
                    stream: stream, log: log.location, events: events, state: state, version: version,
                    projectors: results, trackerFolder: folder, into: &$0)
            }
            return
        }
        output.line("")
        output.line("Projections, caught up with the log:")
        for (name, result) in results {
            switch result {
            case .caughtUp(let checkpoint): output.line("  \(TextPadding.pad(name, 16)) checkpoint \(checkpoint)")
            case .runBy(let pid):
                output.line(
                    "  \(TextPadding.pad(name, 16)) being run by \(pid.map { "process \($0)" } ?? "another process"), which projects these events")
            }
        }
        output.line("  analytics messages are in \(folder)/segment.ndjson and ga4.ndjson (or went to the endpoints given)")
        output.line("")
        output.line(
            "The log \(log.location) now holds \(events) events. Try: flowlog log --stream \(stream), flowlog orders, flowlog view --stream \(stream)"
        )
    }
}
