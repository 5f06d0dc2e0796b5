import ArgumentParser
import FlowLogBasics
import FlowLogProjectors
import FlowLogStore
import FlowLogSystem

/// `flowlog retain`: keeping sessions no longer than needed (GDPR art. 5), by forgetting every
/// session whose last event is older than a period, now or daily (a retention set on the log).
struct RetainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retain",
        abstract: "Forget every session whose last event is older than a period, or set the retention the log applies daily.",
        discussion: """
            --older-than 90d forgets, as `\(Program.name) forget` does, every session (stream) whose last event \
            is more than 90 days before now; units: h (hours), d (days), w (weeks). It forgets them 500 \
            at a time, each batch in one transaction: a retain that is stopped or killed leaves whole \
            batches, and running it again forgets the rest. A session that gets a new event while retain \
            runs is kept. It asks before forgetting, unless --yes; without a terminal it needs --yes. \
            --dry-run lists the sessions it would forget, one a line (--format json: one object a line, \
            as `\(Program.name) streams` writes them), and changes nothing\(Program.Help.retainVendors).

            --set 90d stores a retention on the log, which \(Program.Help.retainRunners) apply when they start and then once a day (one process at a time); --set off \
            removes it; `\(Program.name) retain` alone shows it. Each forgotten session gets its event in the \
            log's audit trail (flowlog:erasures)\(Program.Help.retainInFiles).
            """)

    @Option(
        name: .customLong("older-than"),
        help: ArgumentHelp("Forget the sessions whose last event is older than this (90d, 12h, 2w).", valueName: "period"))
    var olderThan: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Store a retention on the log (90d), or remove it (off).", valueName: "period|off"))
    var setting: String?
    @Flag(name: .customLong("dry-run"), help: "List the sessions --older-than would forget, and change nothing.")
    var dryRun = false
    @Flag(help: "Forget without asking.")
    var yes = false
    // Sessions a transaction; the tests make it small to kill a retain between two batches.
    @Option(name: .customLong("batch-size"), help: .hidden) var batchSize = Retention.defaultBatchSize
    @Option(help: Program.Help.retainFolder)
    var trackerDir: String?
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if let olderThan, RetentionPeriod(olderThan) == nil { throw ValidationError(RetentionPeriod.refusal(of: olderThan, option: "--older-than")) }
        if let setting, setting != "off", RetentionPeriod(setting) == nil {
            throw ValidationError(RetentionPeriod.refusal(of: setting, option: "--set") + " (or off)")
        }
        if olderThan != nil, setting != nil {
            throw ValidationError("--older-than forgets now and --set stores a retention for later: give one of them.")
        }
        if olderThan == nil, dryRun || yes { throw ValidationError("--dry-run and --yes go with --older-than (such as --older-than 90d).") }
        if batchSize < 1 { throw ValidationError("--batch-size must be 1 or more.") }
    }

    func run() throws {
        try CommandExecution.run { output in
            if let olderThan, let period = RetentionPeriod(olderThan) {
                try forget(olderThan: period, output)
            } else if let setting {
                try store(RetentionPeriod(setting), output)
            } else {
                let log = try Composition.openLog(logOptions, access: .readOnly)
                show(try log.settings().retention, of: log, output)
            }
        }
    }

    private func forget(olderThan period: RetentionPeriod, _ output: OutputWriter) throws {
        if !dryRun, !yes, isatty(STDIN_FILENO) != 1 {
            throw CLIFailure(
                "retain forgets sessions for good and asks first, but standard input is not a terminal to answer on: pass --yes to forget without asking (--dry-run lists them first). Nothing was changed.",
                .usage)
        }
        let log = try Composition.openLog(logOptions, access: dryRun ? .readOnly : .readWrite)
        let cutoff = period.cutoff(now: SystemClock().now())
        if dryRun {
            try Retention.forEachCandidate(in: log, olderThan: cutoff) { candidate in
                if format.isJSON {
                    output.json { json in
                        json.object { json in
                            json.field("stream", candidate.stream)
                            json.field("version", candidate.version)
                            json.field("lastPosition", candidate.lastPosition)
                            json.key("lastTimestamp")
                            json.timestamp(candidate.lastTimestamp)
                        }
                    }
                } else {
                    output.line(TerminalText.escaped(candidate.stream))
                }
                return true
            }
            return
        }
        guard let forgetting = log.capabilities.forgetting else {
            throw CLIFailure("\(log.location) cannot forget sessions: only LMDB and PostgreSQL logs can. Nothing was changed.", .usage)
        }
        let lease = try Self.lease(log)
        // As `forget`: no tracker runner may append to a tracker file while it is rewritten.
        let trackerLeases = try Program.leaseProjectorsWritingFiles(of: log)
        defer { withExtendedLifetime((lease, trackerLeases)) {} }
        let trackerFolder = trackerDir ?? Program.projectorFolder(for: logOptions)
        let count = try Retention.candidateCount(in: log, olderThan: cutoff)
        if count > 0, !yes,
            !confirmed(
                "forget \(count) sessions whose last event is before \(cutoff.rfc3339) (older than \(period.spelledOut)) in \(log.location)? [y/N] ")
        {
            Diagnostics.write("Nothing was forgotten.")
            return
        }
        // Ctrl-C or SIGTERM stops it after the batch under way: every batch stays whole.
        Interruption.hold()
        let progress = Progress(label: "forgetting sessions", total: count, step: max(batchSize, count / 200))
        let outcome = try Retention.forget(
            in: log, olderThan: cutoff, period: period.description, using: forgetting, clock: SystemClock(),
            batchSize: batchSize,
            beforeBatch: { batch in
                try Program.forgetInProjectorFiles(streams: Set(batch), folder: trackerFolder)
            }
        ) { done in
            progress.advance(to: done.sessions + done.skipped)
            return !Interruption.requested
        }
        progress.finish()
        let stopped = outcome.stopped
        if format.isJSON {
            output.json { json in
                json.object { json in
                    json.field("log", log.location)
                    json.field("olderThan", period.description)
                    json.key("cutoff")
                    json.timestamp(cutoff)
                    json.field("sessions", outcome.sessions)
                    json.field("events", outcome.events)
                    json.field("kept", outcome.skipped)
                    json.field("batches", outcome.batches)
                    json.field("complete", !stopped)
                }
            }
        } else {
            output.line(
                "forgot \(outcome.sessions) sessions (\(outcome.events) events) of \(log.location) whose last event was before \(cutoff.rfc3339) (older than \(period.spelledOut))"
                    + (outcome.skipped > 0 ? "; kept \(outcome.skipped) that got new events meanwhile." : "."))
            if stopped { output.line("Stopped before the end: run the same retain again to forget the rest.") }
            if outcome.sessions > 0 {
                output.line("The erased bytes stay in the log file's free pages until `\(Program.name) compact --db \(log.location)`.")
            }
        }
    }

    private func store(_ period: RetentionPeriod?, _ output: OutputWriter) throws {
        let log = try Composition.openLog(logOptions, access: .readWrite)
        let settings = try log.updateSettings { settings, _ in
            var changed = settings
            changed.retention = period
            return changed
        }
        show(settings.retention, of: log, output)
        if settings.retention != nil, log.capabilities.forgetting == nil {
            Diagnostics.write(
                "\(log.location) cannot forget sessions (only LMDB and PostgreSQL logs can): the retention is stored, and the daily run skips this log."
            )
        }
    }

    private func show(_ retention: RetentionPeriod?, of log: any LogStore, _ output: OutputWriter) {
        if format.isJSON {
            output.json { json in
                json.object { json in
                    json.field("log", log.location)
                    json.field("retention", retention?.description)
                }
            }
        } else if let retention {
            output.line(
                "retention of \(log.location): \(retention) (sessions whose last event is older than \(retention.spelledOut) are forgotten daily by `projections run --follow` and `serve`)"
            )
        } else {
            output.line("retention of \(log.location): off (every session is kept)")
        }
    }

    /// The lease the daily run holds too: one retention at a time on a log.
    private static func lease(_ log: any LogStore) throws -> any ProjectorLease {
        do {
            return try log.leaseProjector(RetentionSchedule.leaseName)
        } catch FlowLogError.busy(let holder) {
            throw CLIFailure(
                "\(holder.pid.map { "Process \($0)" } ?? "Another process") is applying the retention of \(log.location) (`projections run --follow` and `serve` apply a retention set on the log); wait for it to finish, then run retain again. Nothing was changed.",
                .busy)
        }
    }

    /// Asks on standard error and reads the answer from standard input: only `y` or `yes` agree.
    private func confirmed(_ question: String) -> Bool {
        var text = question
        text.withUTF8 { _ = FlowLogSystem.write(STDERR_FILENO, $0.baseAddress, $0.count) }
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.filter { $0 != " " && $0 != "\t" && $0 != "\r" }.lowercased())
    }
}
