import FlowLogBasics
import FlowLogProjections
import Foundation

/// `AppLog`'s pusher, on a thread of its own: woken by each accepted command or by its interval,
/// it pushes every stream by `push`'s rules. A push that fails as a whole (no network, a server
/// down) is tried again after a pause that doubles up to the interval, with jitter.
final class BackgroundSync: Sendable {
    private struct Progress {
        var woken = false
        /// Events dispatched since the push under way began: it may not have read them.
        var dispatchedSincePush = 0
        var stopping = false
        var current = SyncStatus()
    }

    private let log: AppLog
    private let interval: Double
    private let forgetGone: Bool
    /// The sync thread sleeps here between pushes; a dispatch or `stop()` wakes it.
    private let progress = ConditionBox(Progress())
    private let retry: RetryPolicy

    init(log: AppLog, interval: Double, forgetGone: Bool) {
        (self.log, self.interval, self.forgetGone) = (log, interval, forgetGone)
        retry = RetryPolicy(deadline: .infinity, firstDelay: 0.5, maximumDelay: max(interval, 0.5), timeout: 60)
    }

    var status: SyncStatus {
        progress.withLock { $0.current }
    }

    /// Starts the sync thread, which pushes with `pusher`.
    func start(_ pusher: Pusher) {
        // From here on the pusher is the sync thread's alone.
        nonisolated(unsafe) let pusher = pusher
        let thread = Thread { [self] in run(pusher) }
        thread.name = "flowlog-sync"
        thread.start()
    }

    /// A command's events were appended: counted as pending until a push delivers them.
    func dispatched(events: Int) {
        progress.withLock { progress in
            progress.current.pending += events
            progress.dispatchedSincePush += events
            progress.woken = true
            self.progress.signal()
        }
    }

    func stop() {
        progress.withLock { progress in
            progress.stopping = true
            self.progress.signal()
        }
    }

    private func run(_ pusher: Pusher) {
        var failures = 0
        while true {
            progress.withLock { $0.dispatchedSincePush = 0 }
            var outcome = SyncStatus()
            do {
                let report = try pusher.push(log.log)
                if forgetGone {
                    let gone = report.refused.filter { $0.reason == .gone }.map(\.stream)
                    if !gone.isEmpty { try log.forget(gone) }
                }
                outcome.refused = report.refused
                outcome.pending = try pendingEvents(refused: report.refused)
                outcome.lastSuccess = report.refused.isEmpty ? Date() : nil
                failures = 0
            } catch {
                outcome.lastError = "\(error)"
                failures += 1
            }
            let pause = progress.withLock { progress in
                progress.current.pushes += 1
                progress.current.refused = outcome.refused
                if let error = outcome.lastError {
                    progress.current.lastError = error
                } else {
                    // Events dispatched during the push may not be in it: the push they woke counts them.
                    progress.current.pending = outcome.pending + progress.dispatchedSincePush
                    progress.current.lastError = nil
                    if let success = outcome.lastSuccess { progress.current.lastSuccess = success }
                }
                return failures > 0 ? retry.delay(afterAttempt: failures, retryAfter: nil, random: Double.random(in: 0...1)) : interval
            }
            // A command dispatched while offline waits for the backoff, not for the interval.
            let recovered = failures == 0
            let done = progress.withLock(waitingUntil: { $0.stopping || ($0.woken && recovered) }, deadline: Date(timeIntervalSinceNow: pause)) {
                progress in
                progress.woken = false
                return progress.stopping
            }
            if done { return }
        }
    }

    /// After a push: the events of streams the server refused stay here, unsent.
    private func pendingEvents(refused: [PushReport.Refused]) throws -> Int {
        try refused.filter { $0.reason != .gone }.reduce(0) { $0 + (try log.log.version(of: $1.stream)) }
    }
}
