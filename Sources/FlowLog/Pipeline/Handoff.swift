import Foundation

/// A bounded queue between producer threads and one consumer, so reading ahead never holds more
/// than `capacity` in memory. Items count 1 each unless a `weight` says otherwise (the log's
/// `GroupCommitWriter` weighs submissions by their commands, so that many small ones may wait
/// where a few large ones would).
package final class Handoff<Item>: @unchecked Sendable {
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private var items: [Item] = []
    private var queuedWeight = 0
    private var closed = false
    private var cancelled = false
    private var failure: (any Error)?
    private let capacity: Int
    private let weight: (Item) -> Int

    package init(capacity: Int, weight: @escaping (Item) -> Int = { _ in 1 }) {
        self.capacity = capacity
        self.weight = weight
    }

    /// Waits for room; `false`, queueing nothing, when the consumer gave up or the queue was
    /// closed. An item heavier than the whole capacity still goes in, once the queue is empty.
    package func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queuedWeight >= capacity, !cancelled, !closed { condition.wait() }
        guard !cancelled, !closed else { return false }
        items.append(item)
        queuedWeight += weight(item)
        condition.broadcast()
        return true
    }

    package func close(error: (any Error)?) {
        condition.lock()
        closed = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next item; `nil` once the producer closed and everything was taken; the producer's error, if it failed.
    /// Once the handoff is cancelled, `Cancelled` (a consumer that is itself a stage of a pipeline
    /// must not wait for a producer that may never come back).
    package func take() throws -> Item? {
        try takeAll(upToWeight: 0).first
    }

    /// The items waiting, oldest first: at least one (waiting for it), then more while their
    /// weights add up to at most `limit` and `admits` accepts each (it is asked of every item
    /// considered, the first included, whose answer cannot refuse it). An empty array once the
    /// producer closed and everything was taken; otherwise as `take`. Without `waiting`, an empty
    /// array when nothing waits now (the caller takes again, waiting, to learn of the end or the
    /// producer's error).
    package func takeAll(upToWeight limit: Int, waiting: Bool = true, admits: (Item) -> Bool = { _ in true }) throws -> [Item] {
        condition.lock()
        defer { condition.unlock() }
        while waiting, items.isEmpty, !closed, !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        guard !items.isEmpty else {
            if waiting, let failure, !(failure is Cancelled) { throw failure }
            return []
        }
        var taken = 0
        var total = 0
        while taken < items.count {
            let next = weight(items[taken])
            guard taken == 0 || total + next <= limit, admits(items[taken]) || taken == 0 else { break }
            total += next
            taken += 1
        }
        queuedWeight -= total
        let batch = Array(items.prefix(taken))
        items.removeFirst(taken)
        condition.broadcast()
        return batch
    }

    package func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
