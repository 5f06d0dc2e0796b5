import ArgumentParser
import FlowDomain
import FlowLog

struct BisectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bisect",
        abstract: "Find the first event of a stream after which its state goes wrong, in O(log n) state reconstructions.",
        discussion: """
        Give a built-in check with --invariant NAME (--list-invariants names them), or your own with \
        --run 'COMMAND': it is run by /bin/sh with the state as JSON on standard input (exactly what \
        `state --at POSITION --format json` prints), and, as `git bisect run` reads it, exit status 0 means \
        good, 125 skip this version, anything else bad (a crash too). A check that runs past --timeout \
        (default 60 seconds) is killed with every process it started, and bisect stops (exit 124). The \
        initial state is taken as good. Prints the culprit event, the states before and after it, and \
        what it changed; exits 0 when a culprit was found or the final state is good, and 3 when skipped \
        versions leave several candidates (it lists them).
        """)

    @Option(help: "The stream to search.") var stream: String?
    @Option(help: "A built-in invariant (or 'all').") var invariant: String?
    @Option(name: .customLong("run"), help: "A shell command that reads the state as JSON on stdin and exits 0 for good.") var runCommand: String?
    @Option(help: "With --run: kill the check, with every process it started, after this many seconds and stop (0: no limit).") var timeout: Double?
    @Flag(help: "List the built-in invariants.") var listInvariants = false
    @Option(help: "text or json.") var format: OutputFormat = .text
    @OptionGroup var source: SourceOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if listInvariants { return }
        guard stream != nil else { throw ValidationError("Name the stream to search with --stream.") }
        guard (invariant == nil) != (runCommand == nil) else { throw ValidationError("Give exactly one of --invariant NAME and --run 'COMMAND'.") }
        if let timeout {
            guard runCommand != nil else { throw ValidationError("--timeout goes with --run 'COMMAND'.") }
            guard timeout >= 0, timeout.isFinite else { throw ValidationError("--timeout must be a number of seconds, 0 or more (0: no limit).") }
        }
        if let invariant, Invariant.named(invariant) == nil {
            throw ValidationError("There is no invariant '\(invariant)'; the invariants are \((Invariant.all.map(\.name) + ["all"]).joined(separator: ", ")).")
        }
    }

    func run() throws {
        if listInvariants {
            for invariant in Invariant.all { Output.line("\(TextRendering.pad(invariant.name, 22)) \(invariant.summary)") }
            Output.line("\(TextRendering.pad("all", 22)) every invariant above")
            return
        }
        var undecided = false
        try reportingFailures {
            let stream = stream!
            let (source, log) = try self.source.source(global)
            let history = try StreamHistory(stream: stream, source: source, log: log)
            guard history.versions > 0 else {
                throw CLIFailure("Stream \(stream) has no events\(self.source.file.map { " in \($0)" } ?? ""); check the name with `flowlog log`.", exitCode: CLIFailure.noInput)
            }
            var reasons: [Int: String] = [:]
            let check: (Int, FlowState) throws -> Bisector.Verdict
            if let invariant = invariant.flatMap(Invariant.named) {
                check = { version, state in
                    guard let violation = invariant.violation(in: state) else { return .good }
                    reasons[version] = "\(invariant.name): \(violation)"
                    return .bad
                }
            } else {
                let shell = ShellCheck(command: runCommand!, timeout: timeout == 0 ? nil : timeout ?? 60)
                check = { version, state in
                    // Exactly what `flowlog state --at POSITION --format json` prints for this version.
                    let input = Array((FlowJSON.state(state, stream: stream, version: version) + "\n").utf8)
                    guard let status = ShellCheck.status(try shell.run(input: input)) else {
                        throw CLIFailure(Self.timedOut(shell, version: version, stream: stream), exitCode: CLIFailure.checkTimedOut)
                    }
                    if status == 125 { return .skip }
                    reasons[version] = "`\(shell.command)` exited with status \(status)"
                    return status == 0 ? .good : .bad
                }
            }
            let outcome = try Bisector.bisect(versions: history.versions, state: history.state(after:), event: history.event(version:), check: check)
            switch outcome {
            case .finalStateIsGood(let version, let reconstructions):
                Output.line(format == .json ? "{\"found\":false,\"stream\":\(JSONWriter.quoted(stream)),\"version\":\(version),\"reconstructions\":\(reconstructions)}"
                                            : "The final state of \(stream) (version \(version)) passes the check: nothing to bisect.")
            case .found(let culprit):
                report(culprit, stream: stream, reason: reasons[culprit.record.version] ?? "")
            case .undecided(let candidates, let reconstructions):
                try reportUndecided(candidates: candidates, stream: stream, reconstructions: reconstructions, history: history)
                undecided = true
            case .finalStateSkipped(let version, let reconstructions):
                Output.line(format == .json
                    ? "{\"found\":false,\"undecided\":true,\"stream\":\(JSONWriter.quoted(stream)),\"version\":\(version),\"candidates\":[],\"skipped\":[\(version)],\"reconstructions\":\(reconstructions)}"
                    : "The check skipped the final state of \(stream) (version \(version), exit 125), so nothing is known to be bad: nothing to bisect.")
                undecided = true
            }
        }
        if undecided { throw ExitCode(CLIFailure.undecided) }
    }

    private static func timedOut(_ shell: ShellCheck, version: Int, stream: String) -> String {
        let seconds = shell.timeout.map { $0 == $0.rounded() ? String(Int($0)) : String($0) } ?? "?"
        return "`\(shell.command)` ran past the \(seconds)-second timeout on version \(version) of \(stream) and was killed, with every process it started; bisect stopped. Give a longer --timeout (0 for none), or make the check finish sooner."
    }

    /// Skipped versions hide which candidate is the first bad one: all of them are listed.
    private func reportUndecided(candidates: ClosedRange<Int>, stream: String, reconstructions: Int, history: StreamHistory) throws {
        let events = try candidates.map(history.event(version:))
        let skipped = Array(candidates.dropLast())
        if format == .json {
            var json = JSONWriter()
            json.beginObject()
            json.key("found"); json.bool(false)
            json.key("undecided"); json.bool(true)
            json.key("stream"); json.string(stream)
            json.key("candidates"); json.beginArray(); for version in candidates { json.int(version) }; json.endArray()
            json.key("skipped"); json.beginArray(); for version in skipped { json.int(version) }; json.endArray()
            json.key("reconstructions"); json.int(reconstructions)
            json.key("events"); json.beginArray(); for event in events { FlowJSON.writeEvent(event, into: &json) }; json.endArray()
            json.endObject()
            Output.line(json.text)
            return
        }
        let names = skipped.map(String.init).joined(separator: ", ")
        Output.line("The first bad event of \(stream) is one of versions \(candidates.lowerBound) through \(candidates.upperBound): the check skipped version\(skipped.count == 1 ? "" : "s") \(names) (exit 125), so bisect cannot tell which (\(reconstructions) state reconstructions). Version \(candidates.lowerBound - 1) is good and version \(candidates.upperBound) is bad.")
        for event in events {
            Output.line("  #\(event.position) v\(event.version) \(TextRendering.eventSummary(event.event)) (\(event.actor.rawValue), \(event.timestamp.rfc3339))")
        }
    }

    private func report(_ culprit: Bisector.Culprit, stream: String, reason: String) {
        let record = culprit.record
        let changes = StateDiff.changes(from: culprit.before, to: culprit.after)
        if format == .json {
            var json = JSONWriter()
            json.beginObject()
            json.key("found"); json.bool(true)
            json.key("reason"); json.string(reason)
            json.key("reconstructions"); json.int(culprit.reconstructions)
            json.key("event"); FlowJSON.writeEvent(record, into: &json)
            json.key("before"); FlowJSON.writeState(culprit.before, stream: stream, version: record.version - 1, into: &json)
            json.key("after"); FlowJSON.writeState(culprit.after, stream: stream, version: record.version, into: &json)
            json.key("changes"); json.beginArray()
            for change in changes { StateDiff.write(change, into: &json) }
            json.endArray()
            json.endObject()
            Output.line(json.text)
            return
        }
        Output.line("""
        The first bad event of \(stream) is #\(record.position) (version \(record.version)), found in \(culprit.reconstructions) state reconstructions:
          \(TextRendering.eventSummary(record.event)) (\(record.actor.rawValue), \(record.timestamp.rfc3339), event id \(record.eventId))
        Why it is bad: \(reason)

        State before (version \(record.version - 1)):
        \(TextRendering.state(culprit.before, stream: stream, version: record.version - 1))

        State after (version \(record.version)):
        \(TextRendering.state(culprit.after, stream: stream, version: record.version))

        What it changed:
        \(changes.isEmpty ? "  (nothing)" : changes.map { "  " + StateDiff.render($0) }.joined(separator: "\n"))
        """)
    }
}

/// A stream's history for bisecting: states by version, from the log's snapshots or from a file's events.
private struct StreamHistory {
    let versions: Int
    private let stream: String
    private let log: (any LogStore)?
    private let events: [RecordedEvent]

    init(stream: String, source: any ReplaySource, log: (any LogStore)?) throws {
        self.stream = stream
        self.log = log
        if let log {
            versions = try log.version(of: stream)
            events = []
        } else {
            var loaded: [RecordedEvent] = []
            try source.forEachEvent(stream: stream, from: 1, to: nil) { loaded.append($0); return true }
            events = loaded
            versions = loaded.count
        }
    }

    func event(version: Int) throws -> RecordedEvent {
        if let log {
            guard let event = try log.event(inStream: stream, version: version) else {
                throw CLIFailure("Stream \(stream) has no version \(version).", exitCode: CLIFailure.dataError)
            }
            return event
        }
        return events[version - 1]
    }

    func state(after version: Int) throws -> FlowState {
        guard version > 0 else { return FlowDecider.initialState }
        if let log { return try log.state(ofStream: stream, throughPosition: try event(version: version).position).state }
        return FlowDecider.replay(events[0..<version].map(\.event))
    }
}
