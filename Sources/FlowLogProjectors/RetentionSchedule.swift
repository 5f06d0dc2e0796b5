public import FlowLogBasics
public import FlowLogStore

/// Applies the retention set on a log (`flowlog retain --set 90d`) once when its runner starts and
/// then once a day: what `projections run --follow` and `serve` share, so that a log kept by either
/// forgets its old sessions without a cron job of its own.
///
/// The owner calls `runIfDue()` from its loop as often as it likes (a clock reading when nothing is
/// due). The clock is injected, so a test can say that a day has passed instead of waiting one;
/// it is a wall clock because the cutoff is a time of day, and a clock set back delays the next run
/// by as much, which forgets later, never sooner.
///
/// Only one process applies a log's retention at a time: the run holds the lease `retention`
/// (`CheckpointStore.leaseProjector`: a lock file beside an LMDB log, an advisory lock on
/// PostgreSQL, both dropped when their process dies). A runner that finds it held skips this day's
/// run, since the holder is doing the work. A log that cannot forget (`capabilities.forgetting` is
/// nil: PostgreSQL in this build) is skipped with one line a day, never an error: the runner's own
/// work goes on.
public final class RetentionSchedule {
    /// A day, in microseconds.
    public static let day: Int64 = 86_400_000_000
    /// The lease a run holds.
    public static let leaseName = "retention"

    /// What one run did.
    public enum Run: Equatable, Sendable {
        /// No retention is set on the log.
        case off
        /// The log cannot forget (no `StreamForgetting`).
        case cannotForget
        /// Another process holds the lease.
        case busy
        case applied(Retention.Outcome)
        /// The run failed (the message was reported); the next is a day later.
        case failed(String)
    }

    private let log: any LogStore
    private let clock: any WallClock
    private let interval: Int64
    private let batchSize: Int
    private let report: (String) -> Void
    private let beforeBatch: ([String]) throws -> Void
    private var nextRun: Timestamp?

    /// `report` gets one line for each run that did or skipped something (the runner's log).
    public init(
        log: any LogStore, clock: any WallClock, interval: Int64 = day, batchSize: Int = Retention.defaultBatchSize,
        beforeBatch: @escaping ([String]) throws -> Void = { _ in }, report: @escaping (String) -> Void
    ) {
        self.log = log
        self.beforeBatch = beforeBatch
        self.clock = clock
        self.interval = interval
        self.batchSize = batchSize
        self.report = report
    }

    /// Applies the retention if a run is due (the first call, and then `interval` after the
    /// previous run began); `nil` when none is. `shouldStop` is asked after each batch, so a runner
    /// that is told to stop waits for one batch at most.
    @discardableResult
    public func runIfDue(shouldStop: () -> Bool = { false }) -> Run? {
        let now = clock.now()
        if let nextRun, now < nextRun { return nil }
        nextRun = Timestamp(microseconds: now.microseconds + interval)
        return run(now: now, shouldStop: shouldStop)
    }

    private func run(now: Timestamp, shouldStop: () -> Bool) -> Run {
        do {
            guard let period = try log.settings().retention else { return .off }
            guard let forgetting = log.capabilities.forgetting else {
                report("retention \(period) of \(log.location) skipped: only LMDB and PostgreSQL logs can forget.")
                return .cannotForget
            }
            let lease: any ProjectorLease
            do {
                lease = try log.leaseProjector(Self.leaseName)
            } catch FlowLogError.busy(let holder) {
                report(
                    "retention \(period) of \(log.location) skipped today: \(holder.pid.map { "process \($0)" } ?? "another process") is applying it."
                )
                return .busy
            }
            return try withExtendedLifetime(lease) {
                let cutoff = period.cutoff(now: now)
                let outcome = try Retention.forget(
                    in: log, olderThan: cutoff, period: period.description, using: forgetting, clock: clock,
                    batchSize: batchSize, beforeBatch: beforeBatch
                ) { _ in !shouldStop() }
                report(
                    "retention \(period) of \(log.location): forgot \(outcome.sessions) sessions (\(outcome.events) events) whose last event was before \(cutoff.rfc3339)"
                        + (outcome.skipped > 0 ? "; \(outcome.skipped) had new events and were kept" : "") + ".")
                return .applied(outcome)
            }
        } catch {
            report("retention of \(log.location) failed: \(error). The next run is in a day; `\(ProgramName.current) retain` applies it by hand.")
            return .failed("\(error)")
        }
    }
}
