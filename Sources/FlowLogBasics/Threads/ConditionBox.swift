package import Foundation

/// State that threads sleep on until it changes: a queue with room or with work, a write done, a
/// stop asked for. `Mutex`, which guards shared state everywhere else, cannot wait, so such state
/// sits behind an `NSCondition` here instead, and is reached only through these methods: each takes
/// the lock and lets it go in one place, however its body returns or throws, and a wait lets it go
/// only while asleep, checking what it waits for under the lock.
///
/// A body wakes waiters with `signal()` or `broadcast()` while it still holds the lock, as the
/// waiters' checks expect. A body must not wait, block or call back into the same box: the lock is
/// not recursive, and every other thread that wants the state waits for the body to end.
package final class ConditionBox<State> {
    private let condition = NSCondition()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// `body` with the state, holding the lock.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try condition.withLock { try body(&state) }
    }

    /// Sleeps, without the lock, until `ready` holds, then runs `body` with the state, holding the lock.
    package func withLock<Result>(waitingUntil ready: (State) -> Bool, _ body: (inout State) throws -> Result) rethrows -> Result {
        try condition.withLock {
            while !ready(state) { condition.wait() }
            return try body(&state)
        }
    }

    /// As `withLock(waitingUntil:_:)`, but waits no later than `deadline`: `body` runs then whether
    /// or not `ready` holds, and sees the state as it is.
    package func withLock<Result>(
        waitingUntil ready: (State) -> Bool, deadline: Date, _ body: (inout State) throws -> Result
    ) rethrows -> Result {
        try condition.withLock {
            while !ready(state), condition.wait(until: deadline) {}
            return try body(&state)
        }
    }

    /// Wakes one waiter; called from a body, holding the lock.
    package func signal() {
        condition.signal()
    }

    /// Wakes every waiter; called from a body, holding the lock.
    package func broadcast() {
        condition.broadcast()
    }
}

/// Unchecked `Sendable`: the state is read and changed only with the condition's lock held, which the compiler cannot follow.
extension ConditionBox: @unchecked Sendable where State: Sendable {}
