import FlowLogBasics
import Foundation
import LMDB
import Synchronization

/// An order-free digest of a set of index entries: how many, and two 64-bit sums of a strong mix
/// of each entry. `verify` computes it once from the records and once from an index, walked in key
/// order on a second thread, and compares the two: equal digests mean every record has its entry
/// pointing back at it and the index holds nothing else, with no B-tree descent per event. Only a
/// log whose digests differ is walked again entry by entry to say which are wrong
/// (`IntegrityWalk`'s batched lookups). Accidental damage cannot make the sums agree by chance
/// (2⁻¹²⁸); the hash chain, not this, is what guards the records themselves.
struct IndexDigest: Equatable {
    private(set) var count = 0
    private var first: UInt64 = 0
    private var second: UInt64 = 0

    mutating func add(_ entry: UInt64) {
        count += 1
        first &+= Self.mix(entry ^ 0x9E37_79B9_7F4A_7C15)
        second &+= Self.mix(entry &* 0xC2B2_AE3D_27D4_EB4F &+ 0x1656_67B1_9E37_79F9)
    }

    /// A stream-index entry: the stream (by its hash), the version and the position it points at.
    static func streamEntry(streamHash: UInt64, version: Int, position: Int) -> UInt64 {
        mix(streamHash &+ UInt64(bitPattern: Int64(version)) &* 0xFF51_AFD7_ED55_8CCD) ^ UInt64(bitPattern: Int64(position))
    }

    /// An event-id entry: the id and the position it points at.
    static func eventIdEntry(_ id: EventID, position: Int) -> UInt64 {
        mix(id.high ^ mix(id.low)) ^ UInt64(bitPattern: Int64(position)) &* 0x9E37_79B9_7F4A_7C15
    }

    static func streamHash(_ stream: UnsafeRawBufferPointer) -> UInt64 { XXHash64.hash(stream, seed: 0x5EED) }

    /// MurmurHash3's 64-bit finaliser: every input bit moves every output bit.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}

extension LMDBEventLog {
    /// The digests of the stream index (with its pending entries) and of the event-id index, each
    /// walked in key order.
    func indexDigests(_ txn: Transaction, scans: PageScans? = nil) throws -> (streamIndex: IndexDigest, eventIds: IndexDigest) {
        var streamIndex = IndexDigest()
        try txn.withCursor(streamIndexDB, readingAhead: true, scans: scans) { cursor in
            var entry = try cursor.first()
            // A stream's versions are adjacent: its hash is computed once for all of them.
            var current: (prefix: [UInt8], hash: UInt64)?
            while let (key, value) = entry {
                let stream = UnsafeRawBufferPointer(rebasing: key[..<max(key.count - 9, 0)])
                if current == nil || !current!.prefix.elementsEqual(stream) {
                    current = (Array(stream), IndexDigest.streamHash(stream))
                }
                streamIndex.add(
                    IndexDigest.streamEntry(
                        streamHash: current!.hash, version: Keys.decodeNumber(key),
                        position: Keys.decodePosition(value)))
                entry = try cursor.next()
            }
        }
        // Pending entries (log schema 4) are stream-index entries not yet folded in.
        try PendingIndex.load(self, txn, skippingDamaged: true).forEachEntry { stream, version, position in
            streamIndex.add(IndexDigest.streamEntry(streamHash: IndexDigest.streamHash(stream), version: version, position: position))
        }
        var eventIds = IndexDigest()
        try txn.withCursor(eventIdsDB, readingAhead: true, scans: scans) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                // A key that is no event id counts with an id no record has.
                eventIds.add(IndexDigest.eventIdEntry(Keys.eventID(of: key) ?? EventID(high: 0, low: 0), position: Keys.decodePosition(value)))
                entry = try cursor.next()
            }
        }
        return (streamIndex, eventIds)
    }
}

/// The two index digests, read on a thread of its own in a read transaction of its own.
final class IndexWalkThread: Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Set by the thread before it signals `done`.
    private let outcome = Mutex<Result<(Int, (streamIndex: IndexDigest, eventIds: IndexDigest)), any Error>?>(nil)

    /// `scans`: the leaves its walks find whole, for the structure walk of the same snapshot.
    init(log: LMDBEventLog, scans: PageScans? = nil) {
        // The thread only reads, in a read transaction of its own; LMDB's environment allows that.
        nonisolated(unsafe) let shared = log
        Thread { [self] in
            let found = Result { try shared.reading { txn in (txn.snapshotID, try shared.indexDigests(txn, scans: scans)) } }
            outcome.withLock { $0 = found }
            done.signal()
        }.start()
    }

    /// Waits for the walk (again, if asked again) and returns what it found.
    func result() throws -> (Int, (streamIndex: IndexDigest, eventIds: IndexDigest))? {
        done.wait()
        // Ready for the next call: a caller that failed before asking still waits (`waitUntilDone`).
        done.signal()
        return try outcome.withLock { $0 }!.get()
    }

    /// Returns once the walk's read transaction is over. Every caller waits for it on every path:
    /// a caller that threw first (a damaged record) and let its log go on had the log opened again
    /// while this thread still read, and a second environment on the same lock file, in the same
    /// process, takes it for unused and sets its reader table up anew under this thread's feet
    /// (a crash in the reader mutex's unlock).
    func waitUntilDone() {
        _ = try? result()
    }
}
