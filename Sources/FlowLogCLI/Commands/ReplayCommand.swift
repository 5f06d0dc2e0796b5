import ArgumentParser
import Deciding
import FlowLogBasics
import FlowLogHistory
import FlowLogStore
import Foundation

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
    @OptionGroup var start: FromPositionOptions
    @Option(parsing: .unconditional, help: "Stop after this global position.", transform: ValueArguments.wholeNumber) var to: Int?
    @OptionGroup var format: FormatOptions
    @Flag(help: "Print only each stream's final state.") var summary = false
    @Flag(help: "Print the state after every event (the expected-state format).") var trace = false
    @Flag(help: "Compare with the recorded states instead of printing events.") var verify = false
    @Option(help: "With --verify: the expected states (lines of `state --format json` output).") var expected: String?
    @OptionGroup var source: SourceOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if let to, to < start.from { throw ValidationError("--to must not be before --from.") }
        if expected != nil, !verify { throw ValidationError("--expected goes with --verify.") }
        if verify, source.file != nil, expected == nil {
            throw ValidationError("An NDJSON file carries no recorded states: give --expected FILE with --verify --file.")
        }
        if [summary, trace, verify].filter({ $0 }).count > 1 { throw ValidationError("Choose one of --summary, --trace and --verify.") }
    }

    func run() throws {
        try CommandExecution.run { output in
            let (source, log, scope) = try Composition.replaySource(self.source, logOptions)
            if let given = start.given { try scope.check(given, option: "--from") }
            if let to { try scope.check(to, option: "--to") }
            if let stream { try scope.check(stream: stream) }
            if verify {
                try runVerify(source: source, log: log, output: output)
            } else if summary, stream == nil, start.from == 1, to == nil, let log {
                try summarizeInOneWalk(log, output: output)
            } else {
                try replay(source, log: log, output: output)
            }
        }
    }

    private func replay(_ source: any ReplaySource, log: (any LogStore)?, output: OutputWriter) throws {
        let replayer = Replayer(source: source)
        var count = 0
        let progress = Progress(
            label: "replay", total: try log?.lastPosition() ?? 0,
            enabled: log != nil && isatty(STDERR_FILENO) == 1 && (summary || isatty(STDOUT_FILENO) != 1))
        let states = try replayer.run(stream: stream, from: start.from, to: to, keepBefore: !summary && !trace) { step in
            count += 1
            progress.advance(to: step.record.position)
            if summary { return true }
            if trace {
                output.json { FlowJSON.writeState(step.after, stream: step.record.stream, version: step.record.version, into: &$0) }
            } else if format.isJSON {
                output.json { ReplayRendering.json(step, into: &$0) }
            } else {
                output.lines(ReplayRendering.text(step))
            }
            return true
        }
        progress.finish()
        if summary {
            for (stream, state) in states.sorted(by: { $0.key < $1.key }) {
                ReplayRendering.summary(state.state, stream: stream, version: state.version, format: format.format, to: output)
            }
            if !format.isJSON { output.line(ReplayRendering.summaryTotal(events: count, streams: states.count)) }
        }
    }

    /// One walk of the log (`StreamSummaries`): in position order, reading the records where they
    /// lie, or stream by stream when the log holds too many streams to keep every state.
    private func summarizeInOneWalk(_ log: any LogStore, output: OutputWriter) throws {
        let progress = Progress(label: "replay", total: try log.lastPosition(), enabled: isatty(STDERR_FILENO) == 1)
        var (events, streams) = (0, 0)
        try StreamSummaries.forEachFinalState(of: log, progress: progress, keptRows: format.isJSON ? .rows : .count) { summary in
            ReplayRendering.summary(summary.state, stream: summary.stream, version: summary.version, format: format.format, to: output)
            (events, streams) = (events + summary.version, streams + 1)
        }
        if !format.isJSON { output.line(ReplayRendering.summaryTotal(events: events, streams: streams)) }
    }

    /// Exits 1 when anything disagrees.
    private func runVerify(source: any ReplaySource, log: (any LogStore)?, output: OutputWriter) throws {
        let report: ReplayVerifier.Report
        if let expected {
            let expectations = try ReplayVerifier.expectations(fromFile: expected)
            report = try ReplayVerifier.verify(source: source, expected: expectations)
            if report.comparisons == 0 {
                // Nothing compared is no agreement: the file belongs to another log, or is empty.
                let streams = expectations.keys.sorted()
                let named =
                    streams.isEmpty
                    ? "it holds no states"
                    : "it holds states of \(streams.count == 1 ? "stream" : "streams") \(streams.prefix(3).joined(separator: ", "))\(streams.count > 3 ? ", …" : "")"
                throw CLIFailure(
                    "The expected states in \(expected) cover no event of \(self.source.file ?? "the log \(Backend.redacted(logOptions.logPath))"): \(named). Give the states of this log's streams (`\(Program.name) replay --trace` writes one a line).",
                    .dataError)
            }
        } else {
            report = try ReplayVerifier.verifyFingerprints(of: log!, progress: Progress(label: "replay --verify", total: try log!.lastPosition()))
        }
        let disagreements = report.disagreements.filter { stream == nil || $0.stream == stream }
        for disagreement in disagreements {
            VerificationRendering.disagreement(disagreement, format: format.format, to: output)
        }
        VerificationRendering.verdict(report, disagreements: disagreements.count, format: format.format, to: output)
        if report.comparisons == 0 && disagreements.isEmpty {
            Diagnostics.write("nothing was compared: the log holds no recorded states for these streams.")
        }
        if !disagreements.isEmpty { throw CLIFailure(silently: .rejected) }
    }
}
