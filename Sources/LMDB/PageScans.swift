import CLMDBGuard

/// The leaf pages that walks of records in one snapshot found whole as they read them (one bit a
/// page), so that the structure walk of that snapshot need not read their nodes again.
///
/// The structure walk reads every page of the file; a leaf's check (`flowlog_leaf_is_whole`: its
/// bounds, and every node a key and value lying whole in it and filling it exactly) reads the
/// header of every node, so nearly every cache line of the page. Made by a cursor reading ahead
/// (`Transaction.withCursor(_:readingAhead:scans:)`), as LMDB hands over the page's records and
/// the page is at hand, the check costs its comparisons only; made by the walk later, it reads the
/// whole file from memory once more, which on a log of 1M events was a tenth of `verify`'s time.
/// Only a read-only transaction of the same snapshot, with the map's place known, fills or reads it.
///
/// Unchecked `Sendable`: the bits are raw memory that concurrent walks set with atomic ORs (in C), read once they are done.
public final class PageScans: @unchecked Sendable {
    let snapshot: Int
    let base: UInt
    let pageSize: Int
    let pages: Int
    let words: UnsafeMutablePointer<UInt64>

    /// For walks in `txn`'s snapshot; nil where pages cannot be looked at in the map.
    public init?(_ txn: Transaction) {
        let bounds = txn.bounds
        guard txn.isReadOnly, bounds.base != 0, bounds.used != .max, bounds.pageSize >= 512,
            bounds.pageSize & (bounds.pageSize - 1) == 0
        else { return nil }
        snapshot = txn.snapshotID
        base = bounds.base
        pageSize = Int(bounds.pageSize)
        pages = Int(bounds.used / bounds.pageSize)
        let count = (pages + 63) / 64
        words = .allocate(capacity: max(count, 1))
        words.initialize(repeating: 0, count: max(count, 1))
    }

    deinit { words.deallocate() }

    /// Whether a cursor in `txn` may fill these scans: the same snapshot, in the same map.
    func fits(_ txn: Transaction) -> Bool {
        txn.isReadOnly && txn.snapshotID == snapshot && txn.bounds.base == base && Int(txn.bounds.pageSize) == pageSize
    }

    /// Whether page `number` was found whole.
    func contains(_ number: Int) -> Bool {
        guard number >= 0, number < pages else { return false }
        return UnsafeMutableRawPointer(words).load(fromByteOffset: 8 * (number >> 6), as: UInt64.self) & (1 << UInt64(number & 63)) != 0
    }
}
