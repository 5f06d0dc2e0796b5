public import FlowLogStore

/// Answers before the commit: the client decides batch N+1 while the server writes batch N.
///
/// On PostgreSQL a batch's commit is mostly the server's work (inserting rows and index entries),
/// and deciding the next batch is the client's; waiting for one before starting the other left
/// each idle half the time. `handleDeferringCommit` returns a batch's answers with its commit still
/// on its way; the caller tells nobody before `commit.wait()` returns. The next batch is decided
/// against the states this one leaves, and its append waits for this commit first (the log's next
/// call does), so nothing is appended after a commit that failed; should one fail, every cached
/// state is forgotten, since they hold events that were never written.
extension CommandProcessor {
    /// Whether `handleDeferringCommit` can return before its commit (`DeferredCommitAppending`).
    public var defersCommits: Bool { log.capabilities.deferredCommits?.defersCommit ?? false }

    /// `handle`, with the last commit left in flight: the outcomes hold once `commit.wait()` returns.
    public func handleDeferringCommit(_ batch: [CommandEnvelope], fieldsChecked: Bool = false) throws -> (
        outcomes: [CommandOutcome], commit: any PendingCommit
    ) {
        try handleDeferringCommit(batch, fieldsChecked: fieldsChecked, prefetched: LoadedAhead())
    }

    /// `handleDeferringCommit`, with states of the batch's streams loaded ahead (`StatePrefetcher`).
    func handleDeferringCommit(
        _ batch: [CommandEnvelope], fieldsChecked: Bool,
        prefetched: LoadedAhead
    ) throws -> (outcomes: [CommandOutcome], commit: any PendingCommit) {
        deferredCommits = []
        defer { deferredCommits = nil }
        do {
            let outcomes = try handle(batch, fieldsChecked: fieldsChecked, prefetched: prefetched)
            return (outcomes, BatchCommit(deferredCommits ?? [], processor: self))
        } catch {
            forgetAllStates()
            throw error
        }
    }

    /// The log's append, deferring its commit while `handleDeferringCommit` runs.
    func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
        if deferredCommits != nil, let deferring = log.capabilities.deferredCommits, deferring.defersCommit {
            let (results, commit) = try deferring.appendDeferringCommit(requests)
            deferredCommits?.append(commit)
            return results
        }
        return try log.append(requests)
    }

    func forgetAllStates() {
        cache = StateCache(budget: cache.budget)
    }
}

/// The commits of one batch's rounds, waited for in order.
final class BatchCommit: PendingCommit {
    private let commits: [any PendingCommit]
    private let processor: CommandProcessor

    init(_ commits: [any PendingCommit], processor: CommandProcessor) {
        self.commits = commits
        self.processor = processor
    }

    var bytesWritten: Int { commits.reduce(0) { $0 + $1.bytesWritten } }

    func wait() throws {
        do {
            for commit in commits { try commit.wait() }
        } catch {
            processor.forgetAllStates()
            throw error
        }
    }
}
