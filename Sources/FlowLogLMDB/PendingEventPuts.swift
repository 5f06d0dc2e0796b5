import FlowLogBasics
import FlowLogStore
import LMDB

/// The puts each appended event makes — its record, its stream-index entry, its event id and, where
/// it is known, the fingerprint of its stream's state after it (in runs: `FingerprintRuns`) —
/// gathered and written as sorted batches (see `SortedPuts`). Appends and imports both use it.
struct PendingEventPuts {
    private var records = SortedPuts()
    private var index = SortedPuts()
    private var eventIds = SortedPuts()
    private var fingerprints = FingerprintRuns()
    private var keys = KeyScratch()

    init() {}

    /// Empty, with room for as many puts as `other` holds (see `SortedPuts.init(reservingLike:)`).
    init(reservingLike other: PendingEventPuts) {
        records = SortedPuts(reservingLike: other.records)
        index = SortedPuts(reservingLike: other.index)
        eventIds = SortedPuts(reservingLike: other.eventIds)
        fingerprints = FingerprintRuns(reservingLike: other.fingerprints)
    }

    /// Events waiting to be written.
    var count: Int { records.count }

    /// About how many pages of the map writing the waiting puts changes, for an import that bounds
    /// the pages a transaction holds (`ImportSteps`): records, event ids and fingerprints are
    /// appended, filling whole pages; the stream index's pages split in halves, and each of the
    /// `streams` the puts reach starts on a page of its own (its tail).
    func pagesToWrite(streams: Int) -> Int {
        records.appendedPages + eventIds.appendedPages + (fingerprints.byteCount + 4_079) / 4_080 + index.insertedPages + streams
    }

    /// Event ids the last `write` could not append (ids out of time order): each may have changed
    /// a page of its own.
    var scatteredEventIds: Int { eventIds.insertedByLastWrite }

    /// Works out the write order of every waiting put ahead of `write`.
    mutating func sort() {
        records.sort()
        index.sort()
        eventIds.sort()
        fingerprints.sort()
    }

    /// Encodes `record`, chained to `previousHash`, in `encoder` and adds its puts; returns
    /// the record's chain hash. `tag` comes back if its event id is refused; `run` names its stream
    /// (the stream's versions are added in ascending order). Without `indexed`, its stream-index
    /// entry is the caller's (a batch record's).
    mutating func add(
        _ record: RecordedEvent, chainedTo previousHash: UInt64, layout: RecordLayout, salts: inout RecordSalts,
        encoder: inout BinaryWriter, fingerprint: UInt64?, tag: Int, run: Int, indexed: Bool = true
    ) -> UInt64 {
        let hash = RecordCodec.encode(record, previousHash: previousHash, layout: layout, salts: &salts, into: &encoder)
        encoder.withUnsafeBytes {
            if indexed {
                add(
                    position: record.position, record: $0, eventId: record.eventId, stream: record.stream, version: record.version,
                    fingerprint: fingerprint, tag: tag, run: run)
            } else {
                addUnindexed(position: record.position, record: $0, eventId: record.eventId, fingerprint: fingerprint, tag: tag)
            }
        }
        return hash
    }

    mutating func add(
        position: Int, record: UnsafeRawBufferPointer, eventId: EventID, stream: String, version: Int,
        fingerprint: UInt64?, tag: Int, run: Int
    ) {
        keys.withPosition(position) { positionKey in
            records.add(key: positionKey, value: record, tag: tag)
            keys.withEventID(eventId) { eventIds.add(key: $0, value: positionKey, tag: tag) }
            keys.withStreamVersion(stream, version) { index.add(key: $0, value: positionKey, tag: tag, run: run) }
            fingerprints.add(position: position, fingerprint: fingerprint, tag: tag)
        }
    }

    /// As `add`, without the stream-index entry, which the caller writes itself (`DeferredStreamIndex`).
    mutating func addUnindexed(position: Int, record: UnsafeRawBufferPointer, eventId: EventID, fingerprint: UInt64?, tag: Int) {
        keys.withPosition(position) { positionKey in
            records.add(key: positionKey, value: record, tag: tag)
            keys.withEventID(eventId) { eventIds.add(key: $0, value: positionKey, tag: tag) }
            fingerprints.add(position: position, fingerprint: fingerprint, tag: tag)
        }
    }

    /// A forgotten record and its event id: it has no stream-index entry and no fingerprint.
    mutating func addForgotten(position: Int, record: UnsafeRawBufferPointer, eventId: EventID, tag: Int) {
        keys.withPosition(position) { positionKey in
            records.add(key: positionKey, value: record, tag: tag)
            keys.withEventID(eventId) { eventIds.add(key: $0, value: positionKey, tag: tag) }
        }
    }

    /// Writes and forgets every waiting put (the buffers keep their room: `LMDBEventLog.reusablePuts`).
    /// Returns the earliest-tagged event whose id the log (or an earlier put) already had; the other
    /// puts are written regardless.
    mutating func write(to log: LMDBEventLog, _ txn: Transaction) throws -> (tag: Int, eventId: EventID)? {
        _ = try records.write(to: log.eventsDB, in: txn, appending: true)
        _ = try index.write(to: log.streamIndexDB, in: txn)
        if let fingerprintsDB = log.fingerprintsDB {
            try fingerprints.write(to: fingerprintsDB, in: txn)
        } else {
            fingerprints = FingerprintRuns()
        }
        guard let refused = try eventIds.write(to: log.eventIdsDB, in: txn, flags: .noOverwrite, appending: true),
            let id = Keys.decodeEventID(refused.key)
        else { return nil }
        return (refused.tag, id)
    }
}
