import FlowDomain
import FlowLog
import LMDB

/// Lets the kernel take back the memory map's resident pages every so often during a long scan:
/// all of them, not just the records read, since the index and branch pages a scan passes through
/// (and the neighbours the kernel maps around each fault, whole large folios where the page cache
/// holds them) count as much. Releasing early costs re-faults, hence an interval, not every record.
///
/// A short scan never releases: what it maps is bounded by what it reads, and a release is an
/// `madvise` over the whole map plus re-faults afterwards (it was a third of a `state --at` that
/// folds a few hundred events after a snapshot).
struct ResidentPageRelease {
    private let enabled: Bool
    private var mapping: UnsafeRawBufferPointer?
    private var read = 0
    private var sinceRelease = 0
    /// Records read between releases: many for a sequential walk, fewer for the scattered reads of
    /// one stream, where each read may map a lot around it.
    private let releaseEvery: Int
    /// Records a scan reads before its first release.
    private let quiet: Int
    /// How many times the scan has released the map (for tests).
    private(set) var releases = 0

    /// Releasing is only ever done for read-only transactions, whose buffers all lie in the map
    /// (a write transaction's may be heap memory).
    init(releaseEvery: Int, startingAfter quiet: Int, in txn: Transaction) {
        self.releaseEvery = releaseEvery
        self.quiet = max(quiet, releaseEvery)
        self.enabled = txn.isReadOnly
    }

    /// A walk in position order: every 4,096 records (exporting ten million events then stays
    /// near 40 MB resident on this machine's kernel).
    static func walk(in txn: Transaction) -> ResidentPageRelease {
        ResidentPageRelease(releaseEvery: 1 << 12, startingAfter: 1 << 12, in: txn)
    }

    /// The scattered records of one stream: every 128 records once 1,024 were read, so the few
    /// hundred events after a snapshot are read without a release, and a whole long stream (a
    /// `replay --summary` of ten million events) stays near 40 MB resident.
    static func stream(in txn: Transaction) -> ResidentPageRelease {
        ResidentPageRelease(releaseEvery: 1 << 7, startingAfter: 1 << 10, in: txn)
    }

    /// Counts a record the scan has read and decoded; `address` is where it lies in the map.
    @inline(__always)
    mutating func include(_ address: UnsafeRawPointer) {
        guard enabled else { return }
        read += 1
        sinceRelease += 1
        guard sinceRelease >= releaseEvery, read >= quiet else { return }
        if mapping == nil { mapping = Environment.mapping(containing: address) }
        release()
    }

    /// Ends the scan: a long one leaves nothing of the map resident behind it.
    mutating func finish() {
        if sinceRelease > 0 { release() }
    }

    private mutating func release() {
        guard let mapping else { return }
        Environment.releaseResidentPages(of: mapping)
        releases += 1
        sinceRelease = 0
    }
}
