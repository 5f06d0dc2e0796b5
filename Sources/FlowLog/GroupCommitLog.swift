import Foundation

/// Lets many threads append to one log, each waiting until its own events are durable, while the
/// log commits once for everything that arrived during the previous commit (group commit).
///
/// The first caller to find no commit in progress becomes the leader: it takes every request queued
/// so far, appends them in one transaction and hands each waiter its answer. A synchronous commit
/// costs about the same for one event as for a hundred, so throughput grows with the number of
/// concurrent writers while every caller still returns only after its events are on disk.
/// Requests from different callers are independent: none is `chained` to another.
public final class GroupCommitLog: @unchecked Sendable {
    private let log: any EventLog
    private let condition = NSCondition()
    private var queue: [Ticket] = []
    private var committing = false
    /// The size of the last batch: the callers of one commit usually come back together, so a new leader
    /// waits briefly for that many before committing.
    private var lastBatchSize = 1
    /// How long a leader waits for the rest of the previous batch: a fraction of one synchronous commit.
    private let gatherWindow: TimeInterval
    /// How many commits and requests went through, for measuring how well grouping works.
    public private(set) var commits = 0
    public private(set) var requests = 0

    private final class Ticket {
        let request: AppendRequest
        var result: Result<AppendResult, any Error>?
        init(_ request: AppendRequest) { self.request = request }
    }

    public init(log: any EventLog, gatherWindow: TimeInterval = 0.000_2) {
        self.log = log
        self.gatherWindow = gatherWindow
    }

    public func append(_ request: AppendRequest) throws -> AppendResult {
        var unchained = request
        unchained.chained = false
        let ticket = Ticket(unchained)
        condition.lock()
        queue.append(ticket)
        condition.broadcast()
        while ticket.result == nil {
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
        return try ticket.result!.get()
    }
}
