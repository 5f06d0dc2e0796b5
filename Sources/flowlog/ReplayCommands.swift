import ArgumentParser
import FlowDomain
import FlowLog
import Foundation

/// Where `replay` and `bisect` read events: the log, or an NDJSON export given with --file.
struct SourceOptions: ParsableArguments {
    @Option(help: "Replay this NDJSON export directly instead of the log (no import needed).")
    var file: String?

    func source(_ global: GlobalOptions) throws -> (source: any ReplaySource, log: (any LogStore)?) {
        if let file { return (try NDJSONFileSource(path: file), nil) }
        let log = try Composition.openLog(global, access: .readOnly)
        return (log, log)
    }
}

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay events and show the state change each one made, or check that today's reducers still agree with the log.",
        discussion: """
        Each event is printed with the paths of the state it changed (`~ cart.total: 2250 → 4249`); \
        --format json writes one object per event with its "changes". A replay from a position starts \
        each stream from its nearest snapshot. --summary prints only the final state of each stream. \
        --trace writes the state after every event, as `state --format json` prints it: a file of those \
        is what --expected reads.

        --verify replays with today's reducers and compares every stream with what was recorded: the \
        state fingerprints stored with each event (a log written by FlowLog), or, with --expected FILE, \
        the states in that file. It names each stream that disagrees and the first position where it \
        does, and exits 1 if any does.
        """)

    @Option(help: "Only this stream.") var stream: String?
    @Option(help: "Start at this global position.") var from: Int = 1
    @Option(help: "Stop after this global position.") var to: Int?
    @Option(help: "text or json.") var format: OutputFormat = .text
    @Flag(help: "Print only each stream's final state.") var summary = false
    @Flag(help: "Print the state after every event (the expected-state format).") var trace = false
    @Flag(help: "Compare with the recorded states instead of printing events.") var verify = false
    @Option(help: "With --verify: the expected states (lines of `state --format json` output).") var expected: String?
    @OptionGroup var source: SourceOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if from < 1 { throw ValidationError("--from must be a position, 1 or more.") }
        if let to, to < from { throw ValidationError("--to must not be before --from.") }
        if expected != nil, !verify { throw ValidationError("--expected goes with --verify.") }
        if verify, source.file != nil, expected == nil {
            throw ValidationError("An NDJSON file carries no recorded states: give --expected FILE with --verify --file.")
        }
        if [summary, trace, verify].filter({ $0 }).count > 1 { throw ValidationError("Choose one of --summary, --trace and --verify.") }
    }

    func run() throws {
        var failed = false
        try reportingFailures {
            let (source, log) = try self.source.source(global)
            if verify {
                failed = try runVerify(source: source, log: log)
                return
            }
            let output = BufferedOutput()
            if summary, stream == nil, from == 1, to == nil, let log {
                // Stream by stream, so memory holds one stream's state at a time, not every stream's.
                var events = 0
                let streams = try log.streams()
                for (name, _) in streams {
                    let (state, version) = try log.replayedState(ofStream: name)
                    events += version
                    output.line(format == .json ? FlowJSON.state(state, stream: name, version: version) : "\(name) v\(version): " + Self.summaryLine(state))
                }
                if format == .text { output.line("replayed \(events) events of \(streams.count) stream\(streams.count == 1 ? "" : "s")") }
                output.flush()
                return
            }
            let replayer = Replayer(source: source)
            var count = 0
            let progress = Progress(label: "replay", total: try log?.lastPosition() ?? 0, enabled: log != nil && isatty(STDERR_FILENO) == 1 && (summary || isatty(STDOUT_FILENO) != 1))
            let states = try replayer.run(stream: stream, from: from, to: to, keepBefore: !summary && !trace) { step in
                count += 1
                progress.advance(to: step.record.position)
                if summary { return true }
                if trace {
                    output.line(FlowJSON.state(step.after, stream: step.record.stream, version: step.record.version))
                } else {
                    output.line(format == .json ? Self.json(step) : Self.text(step))
                }
                return true
            }
            progress.finish()
            if summary {
                for (stream, state) in states.sorted(by: { $0.key < $1.key }) {
                    output.line(format == .json ? FlowJSON.state(state.state, stream: stream, version: state.version)
                                                : "\(stream) v\(state.version): " + Self.summaryLine(state.state))
                }
                if format == .text { output.line("replayed \(count) events of \(states.count) stream\(states.count == 1 ? "" : "s")") }
            }
            output.flush()
        }
        if failed { throw ExitCode(CLIFailure.rejected) }
    }

    /// Returns whether anything disagreed.
    private func runVerify(source: any ReplaySource, log: (any LogStore)?) throws -> Bool {
        let report: ReplayVerifier.Report
        if let expected {
            let text = try String(contentsOfFile: expected, encoding: .utf8)
            report = try ReplayVerifier.verify(source: source, expected: ReplayVerifier.expectations(fromLines: text.components(separatedBy: "\n")))
        } else {
            report = try ReplayVerifier.verifyFingerprints(of: log!)
        }
        let disagreements = report.disagreements.filter { stream == nil || $0.stream == stream }
        for disagreement in disagreements {
            if format == .json {
                var json = JSONWriter()
                json.beginObject()
                json.key("stream"); json.string(disagreement.stream)
                json.key("position"); json.int(disagreement.position)
                json.key("version"); json.int(disagreement.version)
                json.key("type"); json.string(disagreement.eventType)
                json.key("reason"); json.string(disagreement.reason)
                json.key("replayed"); FlowJSON.writeState(disagreement.replayed, stream: disagreement.stream, version: disagreement.version, into: &json)
                if let recorded = disagreement.recorded { json.key("recorded"); json.value(recorded) }
                json.endObject()
                Output.line(json.text)
            } else {
                Output.line("stream \(disagreement.stream) first disagrees at position \(disagreement.position) (version \(disagreement.version), \(disagreement.eventType)): \(disagreement.reason)")
            }
        }
        let verdict = disagreements.isEmpty
            ? "verified: \(report.streams) stream\(report.streams == 1 ? "" : "s"), \(report.events) events, \(report.comparisons) recorded states compared, all agree"
            : "\(disagreements.count) stream\(disagreements.count == 1 ? " disagrees" : "s disagree") with the recorded states (\(report.comparisons) compared)"
        if format == .json {
            Output.line("{\"verified\":\(disagreements.isEmpty),\"streams\":\(report.streams),\"events\":\(report.events),\"comparisons\":\(report.comparisons),\"disagreements\":\(disagreements.count)}")
        } else {
            Output.line(verdict)
        }
        if report.comparisons == 0 && disagreements.isEmpty {
            Diagnostics.print("nothing was compared: the log holds no recorded states for these streams.")
        }
        return !disagreements.isEmpty
    }

    static func text(_ step: Replayer.Step) -> String {
        let record = step.record
        var lines = ["#\(record.position) \(record.stream) v\(record.version) \(TextRendering.eventSummary(record.event)) (\(record.actor.rawValue), \(record.timestamp.rfc3339))"]
        let changes = StateDiff.changes(from: step.before, to: step.after)
        if changes.isEmpty { lines.append("    (no change)") }
        for change in changes { lines.append("    " + StateDiff.render(change)) }
        return lines.joined(separator: "\n")
    }

    static func json(_ step: Replayer.Step) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.key("position"); json.int(step.record.position)
        json.key("stream"); json.string(step.record.stream)
        json.key("version"); json.int(step.record.version)
        json.key("type"); json.string(step.record.event.typeName)
        json.key("actor"); json.string(step.record.actor.rawValue)
        json.key("timestamp"); json.timestamp(step.record.timestamp)
        json.key("data"); FlowJSON.writeEventData(step.record.event, into: &json)
        json.key("changes"); json.beginArray()
        for change in StateDiff.changes(from: step.before, to: step.after) { StateDiff.write(change, into: &json) }
        json.endArray()
        json.endObject()
        return json.text
    }

    static func summaryLine(_ state: FlowState) -> String {
        "cart \(state.cart.status.rawValue) with \(state.cart.lines.count) line\(state.cart.lines.count == 1 ? "" : "s"), total \(Money.format(cents: state.cart.total)); \(state.orders.orders.count) order\(state.orders.orders.count == 1 ? "" : "s"); \(TextRendering.navigation(state.navigation))"
    }
}

/// Standard output in large writes, for commands that print a line per event.
final class BufferedOutput {
    private var buffer: [UInt8] = []
    private let sink = FileDescriptorOutput()

    func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 20 { flush() }
    }

    func flush() {
        try? sink.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

struct SnapshotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "Show or set how often a stream's state is saved (every K events), so `state --at` and replays cost O(K).",
        discussion: "Snapshots carry the reducer version that wrote them; one from other reducers is never used.")

    @Option(help: "Save a snapshot every K events of a stream from now on (0: none).") var interval: Int?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let interval, interval < 0 { throw ValidationError("--interval must be 0 or more.") }
    }

    func run() throws {
        try reportingFailures {
            let log = try Composition.openLog(global, access: interval == nil ? .readOnly : .readWrite)
            if let interval { try log.setSnapshotInterval(interval) }
            Output.line("snapshot interval: \(try log.snapshotInterval()) events; snapshots stored: \(try log.snapshotCount()); reducer version: \(FlowDecider.reducerVersion)")
        }
    }
}
