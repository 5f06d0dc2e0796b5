import ArgumentParser
import FlowLogBasics
import FlowLogProjections
import FlowLogStore
import Foundation

struct ProjectionsRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Catch every projector up with the log (and keep following it with --follow).",
        discussion:
            "Each tracker delivers on its own: one whose collector is down waits and retries (up to --delivery-deadline) while the others go on; the exit status is 74 if any stopped. With --follow it also applies the log's retention (`flowlog retain --set`) when it starts and once a day."
    )
    @Flag(help: "Keep following new appends until interrupted.") var follow = false
    @Flag(
        help:
            "With --follow, wait while another runner holds the projectors and take over when it ends, instead of exiting 75."
    )
    var standby = false
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --follow on PostgreSQL (log schema 5): seconds after which the projectors' leases end if this runner stops renewing them (paused, or cut off), so that a standby takes over; this runner then stops (exit 75) having moved nothing more. 1 to 3600.",
            valueName: "seconds"),
        transform: ValueArguments.seconds)
    var leaseTimeout: Double = 10
    @Option(
        help: ArgumentHelp(
            "Split each tracker into this many parts by a hash of the stream id (1 to 64), each with its own lease and checkpoint, so that several runners deliver at once, each stream's events in order. The log keeps the number: a runner started without this option uses it. To change it once set, use `flowlog projections repartition`.",
            valueName: "n"))
    var partitions: Int?
    @Flag(
        name: .customLong("validate"),
        help:
            "Send the GA4 events of the whole log to GA4's validation server (/debug/mp/collect, from --ga4-url) and print its messages; nothing is collected and no checkpoint moves."
    )
    var validateOnly = false
    @Option(
        help: ArgumentHelp(
            "With --follow, serve the projectors' metrics on this address (GET /metrics, Prometheus text; the projectors' part of `flowlog serve`'s /metrics). Port 0 takes a free one.",
            valueName: "host:port"))
    var metricsListen: String?
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if validateOnly, tracker.ga4URL == nil {
            throw ValidationError(
                "--validate sends to GA4's validation server: give --ga4-url (such as https://www.google-analytics.com/mp/collect) and --ga4-measurement-id."
            )
        }
        if validateOnly, follow { throw ValidationError("--validate checks what is in the log once; leave out --follow.") }
        if let partitions, !(1...ProjectorPartitioning.maximumCount).contains(partitions) {
            throw ValidationError("--partitions \(partitions) is out of range: give 1 to \(ProjectorPartitioning.maximumCount).")
        }
        guard (1...3600).contains(leaseTimeout) else {
            throw ValidationError("--lease-timeout \(leaseTimeout) is out of range: give 1 to 3600 seconds (default 10).")
        }
        if standby, !follow {
            throw ValidationError(
                "--standby waits to take over a following runner: add --follow (a runner that catches up once has nothing to take over).")
        }
        if let metricsListen {
            guard follow else { throw ValidationError("--metrics-listen serves a runner's metrics while it follows the log: add --follow.") }
            guard ListenAddress(metricsListen) != nil else {
                throw ValidationError(
                    "--metrics-listen takes HOST:PORT (such as 127.0.0.1:9464, or [::1]:9464), with a port from 0 through 65535; got '\(TerminalText.escaped(metricsListen))'."
                )
            }
            #if !Network
                throw ValidationError(
                    "--metrics-listen needs the HTTP server, which this build of flowlog (built without the Network trait) does not have: build the whole flowlog with `scripts/build`."
                )
            #endif
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            defer { HTTPTransports.shutDown() }
            let log = try Composition.openLog(logOptions, access: validateOnly ? .readOnly : .readWrite)
            if validateOnly { return try validateGA4(log, output) }
            if let partitions { try split(log, into: partitions) }
            let counts = try Composition.trackerPartitions(of: log)
            if follow, partitions != nil || counts.values.contains(where: { $0 > 1 }) {
                Interruption.hold()
                return try followSharing(log, output)
            }
            var runner = ProjectionRunner(log: log)
            // Filled once the leases are taken; a tracker asks it before each request it sends.
            let held = HeldLeases()
            let leaseHolds: ((String) -> Bool)? = follow ? held.holds : nil
            var projectors = try Composition.projectors(
                log, tracker: tracker, options: logOptions, cooperative: true, leaseHolds: leaseHolds, partitions: counts)
            // Ctrl-C or SIGTERM stops a follower between two catch-ups, with every checkpoint
            // written (exit 0), and a standby while it waits. The log wakes it on a new event
            // (LISTEN/NOTIFY, or LMDB's own check), so the half second is only how long a stop may wait.
            if follow { Interruption.hold() }
            // Held until this process ends: one runner per projector.
            let locks: [any ProjectorLease]
            if standby {
                let taken = try StandbyLeases.take(
                    projectors.map(\.name), from: log, expiringAfter: leaseTimeout,
                    waiting: { busy in
                        let holder = busy.pid.map { "process \($0)" } ?? "another process"
                        output.line("flowlog projections: standing by: \(busy.projector) is run by \(holder); taking over when it ends")
                        output.flush()
                    },
                    tookOver: {
                        output.line("flowlog projections: took over \(projectors.map(\.name).joined(separator: ", "))")
                        output.flush()
                    })
                guard let taken else { return }
                locks = taken
                // Made again under the leases: what a tracker read of its files and journal
                // before is as old as the runner it replaces left it.
                projectors = try Composition.projectors(
                    log, tracker: tracker, options: logOptions, cooperative: true, leaseHolds: leaseHolds, partitions: counts)
            } else {
                locks = try projectors.map { follow ? try log.leaseProjector($0.name, expiringAfter: leaseTimeout) : try log.leaseProjector($0.name) }
            }
            defer { withExtendedLifetime(locks) {} }
            held.leases = locks
            runner.holdsLease = held.holds
            if follow {
                // A retention set on the log (`flowlog retain --set`) is applied now and daily,
                // between two catch-ups, on this thread: the log object is not shared.
                // This process holds the trackers' leases, so it may rewrite their files between catch-ups.
                let trackerFolder = try Composition.trackerFolder(tracker, options: logOptions)
                let retention = Composition.retentionSchedule(for: log, trackerFolder: trackerFolder)
                let figures = try metricsListen.flatMap(ListenAddress.init).map {
                    try RunnerFigures(log: log, listening: $0, trackerFolder: trackerFolder, output: output)
                }
                // A lease lost (this runner paused or cut off past its timeout) stops it at once:
                // another runner may run the projectors now, and its checkpoint writes are refused
                // (a batch that meets that throws the same error out of `follow`).
                var lost: String?
                try runner.follow(projectors, pollEvery: 0.5) {
                    if let gone = locks.first(where: { !$0.holds }) {
                        lost = gone.projector
                        return true
                    }
                    retention.runIfDue { Interruption.requested }
                    figures?.update(log)
                    return Interruption.requested
                }
                if let lost { throw FlowLogError.busy(ProjectorBusy(projector: lost, pid: nil, lost: true)) }
                return
            }
            var failures: [String] = []
            for (projector, result) in zip(projectors, runner.catchUpEach(projectors)) {
                switch result {
                case .success(let handled):
                    ProjectionRendering.caughtUp(
                        projector.name, handled: handled, checkpoint: try projector.checkpoint(), format: format.format, to: output)
                case .failure(let error):
                    failures.append("\(projector.name): \(error)")
                }
            }
            if !failures.isEmpty {
                throw CLIFailure(
                    failures.joined(separator: " ")
                        + " The other projectors caught up; run `flowlog projections run` again once the collector is back (`flowlog projections status` shows where each stands).",
                    .ioError)
            }
        }
    }

    /// `--partitions N`: each tracker not split yet is split into N parts, starting where it
    /// stands (it must not be running unsplit: `FlowLogError.busy`); one split otherwise is refused.
    /// Runners started together with the same N find it done by the first.
    private func split(_ log: any LogStore, into count: Int) throws {
        for name in Composition.trackerNames {
            var attempts = 0
            while true {
                let current = try ProjectorPartitioning.count(of: name, in: log)
                if current == count { break }
                guard current == 1, try ProjectorPartitioning.pendingCount(of: name, in: log) == nil else {
                    throw CLIFailure(
                        "\(name) is split into \(current) parts; to split it into \(count), run `flowlog projections repartition --partitions \(count)` (it waits for the runners to hand the old parts over). Nothing was run.",
                        .usage)
                }
                do {
                    _ = try Repartitioning.move(name, to: count, in: log, make: { _ in [] })
                    break
                } catch FlowLogError.busy where attempts < 10 {
                    // Another runner may be splitting it this very moment.
                    attempts += 1
                    usleep(200_000)
                }
            }
        }
    }

    /// `--follow` with split trackers: this runner takes its share of the storage projector and
    /// the trackers' parts, beside any number of others (`PartitionedRun`).
    private func followSharing(_ log: any LogStore, _ output: OutputWriter) throws {
        let trackerFolder = try Composition.trackerFolder(tracker, options: logOptions)
        let retention = Composition.retentionSchedule(for: log, trackerFolder: trackerFolder)
        let figures = try metricsListen.flatMap(ListenAddress.init).map {
            try RunnerFigures(log: log, listening: $0, trackerFolder: trackerFolder, output: output)
        }
        let (tracker, options) = (tracker, logOptions)
        let run = PartitionedRun(
            log: log, leaseTimeout: leaseTimeout,
            units: { store in [StorageProjector.projectorName] + (try Composition.trackerPartNames(of: store)) },
            make: { name, shared, holds in
                let all = try Composition.projectors(
                    log, tracker: tracker, options: options, cooperative: true, leaseHolds: holds,
                    partitions: Composition.trackerPartitions(of: shared), trackerLog: shared)
                return all.first { $0.name == name }
            },
            say: {
                output.line("flowlog projections: \($0)")
                output.flush()
            })
        try run.follow {
            retention.runIfDue { Interruption.requested }
            figures?.update(log)
            return Interruption.requested
        }
    }

    /// `--validate`: the GA4 events of every event in the log (the mapping is what is checked, not
    /// what is pending), posted to the validation server.
    private func validateGA4(_ log: any LogStore, _ output: OutputWriter) throws {
        guard let endpoint = try Composition.endpoint(for: "ga4", tracker: tracker), let url = GA4Validation.debugURL(for: endpoint.url) else {
            return
        }
        let service = GA4Service(settings: tracker.settings)
        var messages: [TrackerMessage] = []
        var states: [String: StreamAnalyticsState] = [:]
        try log.forEachEvent(from: 1, through: nil) { record in
            let before = try states[record.stream] ?? StreamAnalyticsState.before(record, in: log)
            messages += service.messages(for: TrackedEvent(record: record, before: before))
            var after = before
            after.apply(record)
            states[record.stream] = after
            return true
        }
        let findings = try GA4Validation.validate(
            messages, service: service, endpoint: VendorEndpoint(url: url, headers: endpoint.headers), transport: HTTPTransports.make())
        ProjectionRendering.validation(findings, events: messages.count, format: format.format, to: output)
        if !findings.isEmpty { throw CLIFailure(silently: .rejected) }
    }
}

/// The leases a runner holds, by projector: what its runner and its trackers' transports ask before
/// each batch and each request (always true for a projector it holds no expiring lease of).
private final class HeldLeases {
    var leases: [any ProjectorLease] = []

    func holds(_ projector: String) -> Bool {
        leases.first { $0.projector == projector }?.holds ?? true
    }
}
