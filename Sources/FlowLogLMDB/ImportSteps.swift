import LMDB

/// When an import's write transaction commits and carries on in a fresh one: once the batches
/// written since the last commit changed about `pagesPerStep` pages (each batch's own estimate,
/// `PendingEventPuts.pagesToWrite` and what the session adds to it). LMDB keeps a transaction's
/// changed pages in heap memory until it commits (and keeps them for reuse after), so this bounds
/// the import's largest allocation by the step's size instead of the import's. A batch is never
/// cut, so a step may go past its size by one batch.
///
/// Counting pages, not bytes: an import of interleaved sessions changes each session's tail page in
/// the stream and order indexes once a step whatever it adds there, so with many streams a step's
/// pages far outweigh the bytes it puts; each stream a batch reaches counts a page. The stream
/// index itself is held back and written a stream at a time (`DeferredStreamIndex`), its writes
/// counted here too, so that a step may end between two streams.
///
/// Nothing asks the kernel to write a step's pages back early (`sync_file_range`, as
/// `CommitWriteback` does beside a commit): called on the writing thread after each step, it
/// blocked there and made a large import much slower.
final class ImportSteps {
    private let steps: TransactionSteps
    private let pagesPerStep: Int
    private var pagesInStep = 0
    /// The stream-index entries held back, when the import is in steps.
    let deferredIndex: DeferredStreamIndex?

    init(_ steps: TransactionSteps, pagesPerStep: Int?) {
        (self.steps, self.pagesPerStep) = (steps, pagesPerStep ?? .max)
        deferredIndex = pagesPerStep.map { DeferredStreamIndex(capacity: $0 * 64, streamCapacity: $0 * 2) }
    }

    /// The transaction to write in now; it changes at each step.
    var current: Transaction { steps.current }

    /// Counts `pages` more and, past the step's size, commits and continues.
    func wrote(pages: Int) throws {
        pagesInStep += pages
        guard pagesInStep >= pagesPerStep else { return }
        try steps.commitAndContinue()
        pagesInStep = 0
    }
}
