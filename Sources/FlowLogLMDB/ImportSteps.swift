import LMDB

/// When an import's write transaction commits and carries on in a fresh one: before a write that
/// would take the pages changed since the last commit past `pagesPerStep` (each write's own
/// estimate, `PendingEventPuts.pagesToWrite` and what the session adds to it). LMDB keeps a
/// transaction's changed pages in heap memory until it commits, and keeps them after for the next
/// one to reuse, so the largest step is memory the import holds to its end: counted before each
/// write, a step never passes its size by more than a write's estimate misses (counted after the
/// write, as it was, a step passed it by a whole write, and a flush of the held-back stream index
/// for 3,000 long streams took a step to a third more pages than its size).
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
        deferredIndex = pagesPerStep.map { DeferredStreamIndex(capacity: $0 * 128, streamCapacity: $0 * 4) }
    }

    /// The transaction to write in now; it changes at each step.
    var current: Transaction { steps.current }

    /// Makes room for a write that changes about `pages` pages: commits and continues first when
    /// the step has written something and could not hold them too.
    func willWrite(pages: Int) throws {
        if pagesInStep > 0, pagesInStep + pages > pagesPerStep {
            try steps.commitAndContinue()
            pagesInStep = 0
        }
        pagesInStep += pages
    }

    /// Counts `pages` a write changed that its estimate could not foresee (event ids out of order)
    /// and, past the step's size, commits and continues.
    func wrote(pages: Int) throws {
        pagesInStep += pages
        guard pagesInStep >= pagesPerStep else { return }
        try steps.commitAndContinue()
        pagesInStep = 0
    }
}
