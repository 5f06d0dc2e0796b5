import FlowLog
import FlowLogProjections
import Foundation

/// `AppLog`'s pusher, on a thread of its own: woken by each accepted command or by its interval,
/// it pushes every stream by `push`'s rules. A push that fails as a whole (no network, a server
/// down) is tried again after a pause that doubles up to the interval, with jitter.
final class BackgroundSync: @unchecked Sendable {
    private let log: AppLog
    private let pusher: Pusher
    private let interval: Double
    private let forgetGone: Bool
    private let condition = NSCondition()
    private var woken = false
    /// Events dispatched since the push under way began: it may not have read them.
    private var dispatchedSincePush = 0
    private var stopping = false
    private var current = SyncStatus()
    private var thread: Thread?
    private let retry: RetryPolicy

    init(log: AppLog, pusher: Pusher, interval: Double, forgetGone: Bool) {
        (self.log, self.pusher, self.interval, self.forgetGone) = (log, pusher, interval, forgetGone)
        retry = RetryPolicy(deadline: .infinity, firstDelay: 0.5, maximumDelay: max(interval, 0.5), timeout: 60)
    }

    var status: SyncStatus {
        condition.lock()
        defer { condition.unlock() }
        return current
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "flowlog-sync"
        self.thread = thread
        thread.start()
    }

    /// A command's events were appended: counted as pending until a push delivers them.
    func dispatched(events: Int) {
        condition.lock()
        current.pending += events
        dispatchedSincePush += events
        woken = true
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        var failures = 0
        while true {
            condition.lock()
            dispatchedSincePush = 0
            condition.unlock()
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
            condition.lock()
            current.pushes += 1
            current.refused = outcome.refused
            if let error = outcome.lastError {
                current.lastError = error
            } else {
                // Events dispatched during the push may not be in it: the push they woke counts them.
                current.pending = outcome.pending + dispatchedSincePush
                current.lastError = nil
                if let success = outcome.lastSuccess { current.lastSuccess = success }
            }
            let pause = failures > 0 ? retry.delay(afterAttempt: failures, retryAfter: nil, random: Double.random(in: 0...1)) : interval
            let deadline = Date(timeIntervalSinceNow: pause)
            // A command dispatched while offline waits for the backoff, not for the interval.
            while !stopping && !(woken && failures == 0) && condition.wait(until: deadline) {}
            woken = false
            let done = stopping
            condition.unlock()
            if done { return }
        }
    }

    /// After a push: the events of streams the server refused stay here, unsent.
    private func pendingEvents(refused: [PushReport.Refused]) throws -> Int {
        try refused.filter { $0.reason != .gone }.reduce(0) { $0 + (try log.log.version(of: $1.stream)) }
    }
}
