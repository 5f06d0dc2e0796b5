import CLMDB

/// A write transaction that its holder may commit and carry on from in a fresh one
/// (`commitAndContinue`), for work too large for one transaction: LMDB keeps every page a write
/// transaction changes in heap memory until it commits (and only starts writing them out, spilling,
/// past 2^17 pages, 512 MB). What a step committed stays committed when a later step fails, so
/// all-or-nothing is the caller's to keep by other means, such as writing into a copy nobody reads
/// until the last step is on disk (FlowLogLMDB's staged import).
public final class TransactionSteps {
    private let environment: Environment
    /// The open transaction; `nil` once a commit or a begin failed (LMDB freed it, or there is none).
    private var open: Transaction?
    /// Commits made by `commitAndContinue` so far.
    public private(set) var committedSteps = 0

    init(environment: Environment, first: Transaction) {
        self.environment = environment
        open = first
    }

    /// The transaction to write in now. Changes at each step: keep no `Transaction` (or anything
    /// read through one) across `commitAndContinue`.
    public var current: Transaction {
        guard let open else { preconditionFailure("TransactionSteps used after a step failed") }
        return open
    }

    /// Commits what was written so far and begins the next transaction.
    public func commitAndContinue() throws(LMDBError) {
        let transaction = current
        open = nil
        // The commit frees the transaction whatever it returns.
        try check(mdb_txn_commit(transaction.handle), "committing a step of a write transaction")
        committedSteps += 1
        open = try environment.begin(flags: 0)
    }

    /// Aborts the open transaction, if there is one.
    fileprivate func abort() {
        if let open { mdb_txn_abort(open.handle) }
        open = nil
    }

    /// Commits the open transaction through `aroundCommit` (see `Environment.write`).
    fileprivate func commitLast(aroundCommit: (_ commit: () -> Void) -> Void) throws(LMDBError) {
        let transaction = current
        open = nil
        var committed: Int32?
        aroundCommit {
            precondition(committed == nil, "aroundCommit ran the commit twice")
            committed = mdb_txn_commit(transaction.handle)
        }
        guard let code = committed else { preconditionFailure("aroundCommit did not run the commit") }
        if code == MDB_MAP_FULL { try environment.grow() }
        try check(code, "committing a write transaction")
    }
}

extension Environment {
    /// As `write(retryingWhenMapIsFull: false, aroundCommit:_:)`, with a transaction that `body` may
    /// commit part of and continue (`TransactionSteps.commitAndContinue`); the last step is committed
    /// when `body` returns, through `aroundCommit`. When `body` throws, the open step is aborted and
    /// the steps committed before it stay. A full map is thrown, after growing the map for next time.
    public func writeInSteps<Result>(
        aroundLastCommit: (_ commit: () -> Void) -> Void = { $0() },
        _ body: (TransactionSteps) throws -> Result
    ) throws -> Result {
        let steps = TransactionSteps(environment: self, first: try begin(flags: 0))
        let result: Result
        do {
            result = try body(steps)
        } catch {
            steps.abort()
            if let error = error as? LMDBError, error.isMapFull { try grow() }
            throw error
        }
        try steps.commitLast(aroundCommit: aroundLastCommit)
        return result
    }
}
