import Foundation

/// Lets many threads append to one log while the log commits once for everything that arrived
/// during the previous commit (group commit). Every append is answered only once its events are
/// durable.
///
/// `append` waits for its own answer; `submit` returns at once with a `PendingAppend`, so one thread
/// can keep several appends in flight and collect their answers in order. Whoever waits for an
/// answer while no commit is in progress becomes the leader: it takes every request queued so far,
/// appends them in one transaction and hands each its answer. A synchronous commit costs about the
/// same for one event as for a hundred, so throughput grows with the appends in flight.
/// Requests from different callers are independent: none is `chained` to another.
public final class GroupCommitLog: @unchecked Sendable {
    private let log: any EventLog
    private let condition = NSCondition()
    private var queue: [PendingAppend] = []
    private var committing = false
    /// The size of the last batch: the callers of one commit usually come back together, so a new leader
    /// waits briefly for that many before committing.
    private var lastBatchSize = 1
    /// How long a leader waits for the rest of the previous batch: a fraction of one synchronous commit.
    private let gatherWindow: TimeInterval
    /// How many commits and requests went through, for measuring how well grouping works.
    public private(set) var commits = 0
    public private(set) var requests = 0

    /// An append on its way to disk. Its answer comes from `wait()`, once the events are durable.
    public final class PendingAppend: @unchecked Sendable {
        fileprivate let request: AppendRequest
        fileprivate var result: Result<AppendResult, any Error>?
        fileprivate let group: GroupCommitLog

        fileprivate init(_ request: AppendRequest, group: GroupCommitLog) {
            self.request = request
            self.group = group
        }

        /// Blocks until the append is durable (committing it, and whatever else is queued, if no
        /// commit is in progress) and returns its answer.
        public func wait() throws -> AppendResult { try group.wait(for: self) }
    }

    public init(log: any EventLog, gatherWindow: TimeInterval = 0.000_2) {
        self.log = log
        self.gatherWindow = gatherWindow
    }

    /// Appends and returns once the events are durable.
    public func append(_ request: AppendRequest) throws -> AppendResult {
        try submit(request).wait()
    }

    /// Queues an append and returns at once. Nothing is acknowledged before `wait()` says so.
    public func submit(_ request: AppendRequest) -> PendingAppend {
        var unchained = request
        unchained.chained = false
        let pending = PendingAppend(unchained, group: self)
        condition.lock()
        queue.append(pending)
        condition.broadcast()
        condition.unlock()
        return pending
    }

    private func wait(for pending: PendingAppend) throws -> AppendResult {
        condition.lock()
        while pending.result == nil {
            if committing {
                condition.wait()
                continue
            }
            committing = true
            let deadline = Date(timeIntervalSinceNow: gatherWindow)
            while queue.count < lastBatchSize, condition.wait(until: deadline) {}
            let batch = queue
            lastBatchSize = batch.count
            queue.removeAll(keepingCapacity: true)
            condition.unlock()
            let outcome = Result { try log.append(batch.map(\.request)) }
            condition.lock()
            switch outcome {
            case .success(let results):
                for (waiting, result) in zip(batch, results) { waiting.result = .success(result) }
            case .failure(let error):
                for waiting in batch { waiting.result = .failure(error) }
            }
            commits += 1
            requests += batch.count
            committing = false
            condition.broadcast()
        }
        condition.unlock()
        return try pending.result!.get()
    }
}
