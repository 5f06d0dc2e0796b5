import ArgumentParser
import FlowLogHistory
import FlowLogStore

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
    @Option(
        parsing: .unconditional, help: "With --run: kill the check, with every process it started, after this many seconds and stop (0: no limit).",
        transform: ValueArguments.seconds) var timeout: Double?
    @Flag(help: "List the built-in invariants.") var listInvariants = false
    @OptionGroup var format: FormatOptions
    @OptionGroup var source: SourceOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if listInvariants { return }
        guard stream != nil else { throw ValidationError("Name the stream to search with --stream.") }
        guard (invariant == nil) != (runCommand == nil) else { throw ValidationError("Give exactly one of --invariant NAME and --run 'COMMAND'.") }
        if let timeout {
            guard runCommand != nil else { throw ValidationError("--timeout goes with --run 'COMMAND'.") }
            guard timeout >= 0, timeout.isFinite else { throw ValidationError("--timeout must be a number of seconds, 0 or more (0: no limit).") }
        }
        if let invariant, LogDecider.invariant(named: invariant) == nil {
            throw ValidationError(
                "There is no invariant '\(TerminalText.escaped(invariant))'; the invariants are \(LogDecider.invariantNames.joined(separator: ", "))."
            )
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            if listInvariants {
                BisectRendering.invariants(format: format.format, to: output)
                return
            }
            try bisect(stream: stream!, output: output)
        }
    }

    private func bisect(stream: String, output: OutputWriter) throws {
        let (source, log, scope) = try Composition.replaySource(self.source, logOptions)
        try scope.check(stream: stream)
        let history = try StreamHistory(stream: stream, source: source, log: log)
        var reasons: [Int: String] = [:]
        let check: (Int, LogDecider.State) throws -> Bisector.Verdict
        if let invariant = invariant.flatMap(LogDecider.invariant(named:)) {
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
                    throw CLIFailure(Self.timedOut(shell, version: version, stream: stream), .checkTimedOut)
                }
                if status == 125 { return .skip }
                reasons[version] = "`\(shell.command)` exited with status \(status)"
                return status == 0 ? .good : .bad
            }
        }
        let outcome = try Bisector.bisect(versions: history.versions, state: history.state(after:), event: history.event(version:), check: check)
        switch outcome {
        case .finalStateIsGood(let version, let reconstructions):
            BisectRendering.finalStateIsGood(stream: stream, version: version, reconstructions: reconstructions, format: format.format, to: output)
        case .found(let culprit):
            BisectRendering.found(culprit, stream: stream, reason: reasons[culprit.record.version] ?? "", format: format.format, to: output)
        case .undecided(let candidates, let reconstructions):
            let events = try candidates.map(history.event(version:))
            BisectRendering.undecided(
                candidates: candidates, events: events, stream: stream, reconstructions: reconstructions, format: format.format, to: output)
            throw CLIFailure(silently: .undecided)
        case .finalStateSkipped(let version, let reconstructions):
            BisectRendering.finalStateSkipped(stream: stream, version: version, reconstructions: reconstructions, format: format.format, to: output)
            throw CLIFailure(silently: .undecided)
        }
    }

    private static func timedOut(_ shell: ShellCheck, version: Int, stream: String) -> String {
        let seconds = shell.timeout.map { $0 == $0.rounded() ? String(Int($0)) : String($0) } ?? "?"
        return
            "`\(shell.command)` ran past the \(seconds)-second timeout on version \(version) of \(stream) and was killed, with every process it started; bisect stopped. Give a longer --timeout (0 for none), or make the check finish sooner."
    }
}
