import Foundation

/// A bounded queue between producer threads and one consumer, so reading ahead never holds more
/// than `capacity` in memory. Items count 1 each unless a `weight` says otherwise (the log's
/// `GroupCommitWriter` weighs submissions by their commands, so that many small ones may wait
/// where a few large ones would).
package final class Handoff<Item> {
    package struct Cancelled: Error { package init() {} }

    /// What producers and the consumer wait on: room, items, the end.
    fileprivate struct Queue {
        var items: [Item] = []
        var queuedWeight = 0
        var closed = false
        var cancelled = false
        var failure: (any Error)?
    }

    private let queue = ConditionBox(Queue())
    private let capacity: Int
    private let weight: @Sendable (Item) -> Int

    package init(capacity: Int, weight: @escaping @Sendable (Item) -> Int = { _ in 1 }) {
        self.capacity = capacity
        self.weight = weight
    }

    /// Waits for room; `false`, queueing nothing, when the consumer gave up or the queue was
    /// closed. An item heavier than the whole capacity still goes in, once the queue is empty.
    package func put(_ item: Item) -> Bool {
        let capacity = capacity
        return queue.withLock(waitingUntil: { $0.queuedWeight < capacity || $0.cancelled || $0.closed }) { state in
            guard !state.cancelled, !state.closed else { return false }
            state.items.append(item)
            state.queuedWeight += weight(item)
            queue.broadcast()
            return true
        }
    }

    package func close(error: (any Error)?) {
        queue.withLock { state in
            state.closed = true
            state.failure = error
            queue.broadcast()
        }
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
        try queue.withLock(waitingUntil: { !waiting || !$0.items.isEmpty || $0.closed || $0.cancelled }) { state in
            if state.cancelled { throw Cancelled() }
            guard !state.items.isEmpty else {
                if waiting, let failure = state.failure, !(failure is Cancelled) { throw failure }
                return []
            }
            var taken = 0
            var total = 0
            while taken < state.items.count {
                let next = weight(state.items[taken])
                guard taken == 0 || total + next <= limit, admits(state.items[taken]) || taken == 0 else { break }
                total += next
                taken += 1
            }
            state.queuedWeight -= total
            let batch = Array(state.items.prefix(taken))
            state.items.removeFirst(taken)
            queue.broadcast()
            return batch
        }
    }

    package func cancel() {
        queue.withLock { state in
            state.cancelled = true
            queue.broadcast()
        }
    }
}

extension Handoff: Sendable where Item: Sendable {}
extension Handoff.Queue: Sendable where Item: Sendable {}
