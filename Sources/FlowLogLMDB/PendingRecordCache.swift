import Foundation
import Synchronization

/// The last read transaction's pending records, reused by the next read of the same snapshot,
/// with a map of where each stream's parts are.
///
/// A `send` reads each stream it meets in a transaction of its own, thousands a commit; each
/// would otherwise walk every record again and binary-search each of them (measured: a sixth of a
/// `send` of one command per session in turn at 10,000 sessions went to those searches). The
/// records are bytes of the map. They stay where they are while their snapshot is the newest
/// (LMDB writes a commit's pages elsewhere), so a reader of the same snapshot id whose first record
/// is at the same address sees the same bytes (a map moved by a resize would put it elsewhere).
/// A record too large for a leaf page lies on overflow pages that later commits leave alone, so
/// the map of the next snapshot extends this one's when its records start with the same records at
/// the same addresses; otherwise (a fold, small records moved with their leaf) it is built anew.
/// Write transactions never use it: their own puts change what they see.
///
/// An `NSLock`, not a `Mutex`: the records it hands out point into LMDB's map, so they are not
/// `Sendable`, and `Mutex` only hands out what may cross threads. The class is not `Sendable`
/// either; its log is what threads share.
final class PendingRecordCache {
    private let lock = NSLock()
    private var snapshot = -1
    private var pending = PendingIndex()
    private var addresses: [UnsafeRawPointer?] = []

    func lookup(snapshot: Int, firstRecord: UnsafeRawPointer?) -> PendingIndex? {
        lock.withLock {
            guard snapshot == self.snapshot, let firstRecord, firstRecord == addresses.first ?? nil else { return nil }
            return pending.fresh()
        }
    }

    /// `pending`, freshly loaded by a read of `snapshot`, with its map; kept for the next read.
    /// The map is extended holding this cache's lock, which then takes the map's own (never the reverse).
    func store(_ loaded: PendingIndex, addresses: [UnsafeRawPointer?], snapshot: Int) -> PendingIndex {
        lock.withLock {
            var pending = loaded.fresh()
            let old = self.pending
            let extends =
                old.map != nil && old.records.count <= loaded.records.count && self.addresses.count == old.records.count
                && old.folded?.through == loaded.folded?.through && old.folded?.below == loaded.folded?.below
                && zip(old.records, loaded.records).allSatisfy { $0.key == $1.key }
                && zip(self.addresses, addresses).allSatisfy { $0 == $1 }
            if extends, let map = old.map {
                map.add(loaded.records, from: old.records.count)
                pending.map = map
            } else {
                pending.map = PendingStreamMap()
                pending.map?.add(loaded.records, from: 0)
            }
            (self.pending, self.snapshot, self.addresses) = (pending, snapshot, addresses)
            return pending.fresh()
        }
    }
}

/// Each stream's parts in a list of records: (record index, stream index) pairs, in record order.
///
/// One map serves every snapshot whose records begin with the records it maps: a later snapshot's
/// records are added to it in place, and a reader takes only the parts of the records its own
/// snapshot holds (their indexes come first). A map made anew for each snapshot copied every
/// stream's parts so far, then freed the copy before: with hundreds of thousands of streams pending
/// (one command per new session), most of a `send` went to copying and freeing them.
final class PendingStreamMap: Sendable {
    /// Readers on other threads look streams up while a newer snapshot adds records.
    private let parts = Mutex<[String: [UInt64]]>([:])

    init() {}

    /// Maps the streams of `records` from `from` on (those before it are mapped already).
    func add(_ records: [BatchRecordView], from: Int) {
        parts.withLock { parts in
            for recordIndex in from..<records.count {
                let record = records[recordIndex]
                for index in 0..<record.streamCount {
                    // An id cut short is left out here; the search without the map reports it.
                    guard let id = record.streamID(at: index) else { continue }
                    parts[String(decoding: id, as: UTF8.self), default: []].append(UInt64(recordIndex) << 32 | UInt64(index))
                }
            }
        }
    }

    /// The stream's entries among `pending`'s records (a prefix of those mapped).
    func entries(of stream: String, in pending: PendingIndex) throws -> [BatchStreamEntry] {
        guard let found = parts.withLock({ $0[stream] }) else { return [] }
        var bytes = stream
        return try bytes.withUTF8 { utf8 in
            let id = UnsafeRawBufferPointer(utf8)
            var entries: [BatchStreamEntry] = []
            entries.reserveCapacity(found.count)
            for packed in found {
                // Parts of later snapshots' records come last.
                guard Int(packed >> 32) < pending.records.count else { break }
                let record = pending.records[Int(packed >> 32)]
                guard !pending.isFolded(record, id) else { continue }
                guard let entry = record.stream(at: Int(packed & 0xFFFF_FFFF)) else {
                    throw PendingIndex.damage(at: record.key, "the entry of stream \(stream) runs past its end")
                }
                entries.append(entry)
            }
            return entries
        }
    }
}
