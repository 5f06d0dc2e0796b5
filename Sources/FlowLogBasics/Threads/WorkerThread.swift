public import Foundation

/// A thread of its own that works until it is asked to stop, and a `stop()` that returns only once
/// the thread is done, so that the caller may then drop what the thread used. The log's
/// `GroupCommitWriter` (which answers every queued request before it ends) and an LMDB import's
/// commit writeback (whose file descriptor must not be used once the commit returns) both need
/// exactly that handshake, so it is written once, here, where both their modules can reach it.
public final class WorkerThread: Sendable {
    private struct Progress {
        var stopping = false
        var started = false
        var finished = false
    }

    /// What `stop()` waits for, and what a body that sleeps between rounds wakes for.
    private let progress = ConditionBox(Progress())

    public init() {}

    /// Starts the thread. `body` returns once `isStopping` tells it to end; between rounds of work
    /// it may sleep in `waitForStop(until:)`, which `stop()` cuts short.
    public func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        progress.withLock { progress in
            precondition(!progress.started, "a WorkerThread runs one body")
            progress.started = true
        }
        let thread = Thread { [self] in
            body()
            progress.withLock { progress in
                progress.finished = true
                self.progress.broadcast()
            }
        }
        if let name { thread.name = name }
        thread.start()
    }

    /// Whether `stop()` was called.
    public var isStopping: Bool {
        progress.withLock { $0.stopping }
    }

    /// Sleeps until `stop()` is called or `deadline` passes; returns whether `stop()` was called
    /// (a loop that asks `isStopping` next may leave it).
    @discardableResult
    public func waitForStop(until deadline: Date) -> Bool {
        progress.withLock(waitingUntil: \.stopping, deadline: deadline) { $0.stopping }
    }

    /// Whether the thread's body has returned (for tests).
    public var hasFinished: Bool {
        progress.withLock { $0.finished }
    }

    /// Asks the thread to end and waits until its body has returned (at once if it never started).
    public func stop() {
        progress.withLock { progress in
            progress.stopping = true
            self.progress.broadcast()
        }
        progress.withLock(waitingUntil: { !$0.started || $0.finished }) { _ in }
    }
}
