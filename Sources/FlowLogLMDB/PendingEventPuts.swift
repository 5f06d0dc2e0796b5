import FlowDomain
import FlowLog
import LMDB

/// The three puts each appended event makes — its record, its stream-index entry and its event id —
/// gathered and written as sorted batches (see `SortedPuts`). Appends and imports both use it.
struct PendingEventPuts {
    private var records = SortedPuts()
    private var index = SortedPuts()
    private var eventIds = SortedPuts()
    private var keys = KeyScratch()

    init() {}

    /// Empty, with room for as many puts as `other` holds (see `SortedPuts.init(reservingLike:)`).
    init(reservingLike other: PendingEventPuts) {
        records = SortedPuts(reservingLike: other.records)
        index = SortedPuts(reservingLike: other.index)
        eventIds = SortedPuts(reservingLike: other.eventIds)
    }

    /// Events waiting to be written.
    var count: Int { records.count }

    /// Works out the write order of every waiting put ahead of `write`.
    mutating func sort() {
        records.sort()
        index.sort()
        eventIds.sort()
    }

    /// Encodes `record`, chained to `previousHash`, in `encoder` and adds its three puts; returns
    /// the record's chain hash. `tag` comes back if its event id is refused; `run` names its stream
    /// (the stream's versions are added in ascending order).
    mutating func add(_ record: RecordedEvent, chainedTo previousHash: UInt64, encoder: inout BinaryWriter,
                      fingerprint: UInt64?, tag: Int, run: Int) -> UInt64 {
        let hash = RecordCodec.encode(record, previousHash: previousHash, into: &encoder)
        encoder.withUnsafeBytes {
            add(position: record.position, record: $0, eventId: record.eventId, stream: record.stream, version: record.version,
                fingerprint: fingerprint, tag: tag, run: run)
        }
        return hash
    }

    mutating func add(position: Int, record: UnsafeRawBufferPointer, eventId: EventID, stream: String, version: Int,
                              fingerprint: UInt64?, tag: Int, run: Int) {
        keys.withPosition(position) { positionKey in
            records.add(key: positionKey, value: record, tag: tag)
            keys.withEventID(eventId) { eventIds.add(key: $0, value: positionKey, tag: tag) }
            keys.withIndexEntry(position: position, fingerprint: fingerprint) { entry in
                keys.withStreamVersion(stream, version) { index.add(key: $0, value: entry, tag: tag, run: run) }
            }
        }
    }

    /// Writes and forgets every waiting put. Returns the earliest-tagged event whose id the log (or
    /// an earlier put) already had; the other puts are written regardless.
    mutating func write(to log: LMDBEventLog, _ txn: Transaction) throws -> (tag: Int, eventId: EventID)? {
        _ = try records.write(to: log.eventsDB, in: txn, appending: true)
        _ = try index.write(to: log.streamIndexDB, in: txn)
        guard let refused = try eventIds.write(to: log.eventIdsDB, in: txn, flags: .noOverwrite, appending: true),
              let id = Keys.decodeEventID(refused.key) else { return nil }
        return (refused.tag, id)
    }
}
