import Foundation

/// A thread of its own that works until it is asked to stop, and a `stop()` that returns only once
/// the thread is done, so that the caller may then drop what the thread used. The server's command
/// writer (which answers every queued request before it ends) and an LMDB import's commit
/// writeback (whose file descriptor must not be used once the commit returns) both need exactly
/// that handshake, so it is written once, here, where both their modules can reach it.
///
/// The owner shares `condition` with its thread: state it keeps beside `isStopping` (the writer's
/// queue) is read and changed holding the same lock, so a thread waiting for work also wakes when
/// it is asked to stop.
public final class WorkerThread: @unchecked Sendable {
    /// The lock of the thread and its owner; `stop()` broadcasts on it.
    public let condition = NSCondition()
    private var stopping = false
    private var started = false
    private var finished = false

    public init() {}

    /// Starts the thread. `body` runs holding `condition`'s lock (it may let go of it while it
    /// works, and take it again), and returns holding it, once `isStopping` tells it to end.
    public func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        condition.lock()
        precondition(!started, "a WorkerThread runs one body")
        started = true
        condition.unlock()
        let thread = Thread { [self] in
            condition.lock()
            body()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        if let name { thread.name = name }
        thread.start()
    }

    /// Whether `stop()` was called; read holding `condition`'s lock.
    public var isStopping: Bool { stopping }

    /// Whether the thread's body has returned (for tests).
    public var hasFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }

    /// Asks the thread to end and waits until its body has returned (at once if it never started).
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while started, !finished { condition.wait() }
        condition.unlock()
    }
}
