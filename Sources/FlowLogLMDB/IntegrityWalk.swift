import FlowLogBasics
import FlowLogStore
import LMDB

/// `flowlog verify`'s walk of the records, with the index checks done a batch at a time.
///
/// Each event needs its stream-index entry and its event-id entry to point back at it. Looking
/// both up as each record was read cost two descents of B-trees per event (the stream index's keys
/// share long prefixes, so a third of the time went to comparing them). A batch of records is
/// gathered first; then each stream's entries are read with one seek and a step per version (a
/// stream's versions are adjacent in the index), and the event ids, time-ordered like the
/// positions, are mostly the next entry of the id index. Problems are reported in the order the
/// walk record by record gave: by position, the record's own problems before its index's.
struct IntegrityWalk {
    let log: LMDBEventLog
    let txn: Transaction

    /// Events gathered before their index entries are read (2.6 MB of them).
    static let defaultBatchSize = 65_536
    let batchSize: Int

    /// Streams a log may have for the walk to keep each one's last version; a log with more is
    /// walked `bounded` (`IntegrityWalk+Bounded`).
    static let defaultMostStreamsHeld = 16_384
    /// Whether the walk holds the streams of a batch only, and checks each record's version and
    /// each stream's stored one against the stream index instead of against the records before it.
    let bounded: Bool

    var slotOf: [String: Int] = [:]
    var streams: [String] = []
    /// Each slot's stream id and 0x00: the front of its stream-index keys.
    private var prefixes: [[UInt8]] = []
    /// Each slot's last version in the walk so far (not kept by a `bounded` walk).
    var versions: [Int] = []
    private var last: (stream: String, slot: Int)?

    private struct Entry {
        var position: Int
        /// `nil` for a damaged record: its index entries are not looked at.
        var slot: Int?
        var version: Int
        var eventId: EventID
    }
    private var batch: [Entry] = []
    /// Problems the walk found, each with its entry in the batch (entries in ascending order).
    private var found: [(entry: Int, problem: IntegrityReport.Problem)] = []

    /// With `digesting`, the records' index entries are summed into `digests` instead of looked up
    /// (`IndexDigest`), and any problem only sets `foundProblems`: the caller walks again, looking
    /// up, to report it.
    private(set) var digests: (streamIndex: IndexDigest, eventIds: IndexDigest)?
    /// Whether a `bounded` walk found a stream's index entries out of order (the walk entry by
    /// entry names the records).
    var disorderedStreams = false
    /// Each slot's stream hash, for the stream-index digest.
    private var streamHashes: [UInt64] = []

    /// The stream-index entries still in batch records (log schema 4): index entries all the same.
    let pending: PendingIndex

    /// The leaves the walk of the records finds whole, for the structure walk of the same snapshot.
    let scans: PageScans?

    init(
        log: LMDBEventLog, txn: Transaction, batchSize: Int = Self.defaultBatchSize, mostStreamsHeld: Int = Self.defaultMostStreamsHeld,
        digesting: Bool = false, scans: PageScans? = nil
    ) throws {
        self.log = log
        self.txn = txn
        self.scans = scans
        pending = try PendingIndex.load(log, txn, skippingDamaged: true)
        bounded = try txn.count(log.streamsDB) > mostStreamsHeld
        self.batchSize = batchSize
        if digesting { digests = (IndexDigest(), IndexDigest()) } else { batch.reserveCapacity(batchSize) }
    }

    /// Whether the walk met a problem of the records themselves (a digesting walk stops at the first).
    var foundProblems: Bool { !found.isEmpty || disorderedStreams }

    /// The records in position order: the hash chain, the contiguity of positions and versions, and
    /// each record's stream-index and event-id entries.
    mutating func checkRecords(_ report: inout IntegrityReport, progress: Progress?) throws {
        var chain = ChainWalk()
        try txn.withCursor(log.eventsDB, readingAhead: true, scans: scans) { cursor in
            var event = RecordedEvent.placeholder
            var entry = try cursor.first()
            while let (key, value) = entry {
                let position = Keys.decodePosition(key)
                if let gap = chain.gap(before: position) { note(gap.position, nil, gap.detail) }
                report.events += 1
                if let damage = chain.decode(value, at: position, into: &event) {
                    // Its stored version may be what was damaged: the stream index says whose next
                    // version it is, so the stream's later events are not blamed as well.
                    let readable = RecordCodec.decodeUnverified(value, position: position)
                    let owner = try bounded ? streamIndexed(at: position, guess: readable?.stream) : streamHolding(position, guess: readable?.stream)
                    if let owner, !bounded { versions[slot(of: owner)] += 1 }
                    if damage.isNewerThanKnown {
                        report.noteNewer(position, damage.stream ?? owner, damage.problem)
                    } else {
                        note(position, damage.stream ?? owner ?? readable?.stream, damage.problem)
                    }
                    if digests == nil { batch.append(Entry(position: position, slot: nil, version: 0, eventId: EventID(high: 0, low: 0))) }
                } else {
                    if event.isForgotten {
                        // Chained and intact, of no stream: only its event id is still indexed.
                        report.forgotten += 1
                        if digests != nil {
                            digests!.eventIds.add(IndexDigest.eventIdEntry(event.eventId, position: position))
                        } else {
                            batch.append(Entry(position: position, slot: nil, version: 0, eventId: event.eventId))
                        }
                    } else {
                        let slot = self.slot(of: event.stream)
                        if !bounded {
                            let last = versions[slot]
                            if event.version != last + 1 { note(position, event.stream, Self.versionProblem(event.version, after: last)) }
                            versions[slot] = max(last, event.version)
                        }
                        if digests != nil {
                            digests!.streamIndex.add(
                                IndexDigest.streamEntry(streamHash: streamHashes[slot], version: event.version, position: position))
                            digests!.eventIds.add(IndexDigest.eventIdEntry(event.eventId, position: position))
                        } else {
                            batch.append(Entry(position: position, slot: slot, version: event.version, eventId: event.eventId))
                        }
                    }
                }
                progress?.advance(to: position)
                // A digesting walk that met a problem has done its job: the caller walks again to name it.
                if digests != nil, foundProblems || !report.newer.isEmpty { return }
                if batch.count == batchSize, digests == nil { try checkIndexes(&report) }
                entry = try cursor.next()
            }
        }
        if digests == nil { try checkIndexes(&report) }
    }

    /// Each stream's stored version against its last event; then every stream the records name but
    /// the log does not list, in stream id order.
    mutating func checkStreams(_ report: inout IntegrityReport) throws {
        if bounded { return try checkStreamsInIndex(&report) }
        var listed = [Bool](repeating: false, count: streams.count)
        try txn.withCursor(log.streamsDB) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                let stream = String(decoding: key, as: UTF8.self)
                let head = Keys.decodeInt(value)
                let slot = slotOf[stream]
                if slot.map({ versions[$0] }) != head {
                    report.note(
                        0, stream, "the stream's stored version is \(head), but its events go up to version \(slot.map { versions[$0] } ?? 0)")
                }
                if let slot { listed[slot] = true }
                report.streams += 1
                entry = try cursor.next()
            }
        }
        let unlisted = streams.indices.filter { !listed[$0] }.sorted { streams[$0].utf8.lexicographicallyPrecedes(streams[$1].utf8) }
        for slot in unlisted {
            report.note(0, streams[slot], "the stream has events up to version \(versions[slot]) but no stored version")
        }
    }

    private mutating func slot(of stream: String) -> Int {
        if let last, last.stream == stream { return last.slot }
        // A bounded walk's digest has no batch whose entries name slots: it starts afresh.
        if bounded, digests != nil, streams.count == batchSize { forgetStreams() }
        let slot =
            slotOf[stream]
            ?? {
                slotOf[stream] = streams.count
                streams.append(stream)
                prefixes.append(Keys.streamPrefix(stream))
                versions.append(0)
                if digests != nil {
                    var bytes = stream
                    streamHashes.append(bytes.withUTF8 { IndexDigest.streamHash(UnsafeRawBufferPointer($0)) })
                }
                return streams.count - 1
            }()
        last = (stream, slot)
        return slot
    }

    /// The slots of the streams met so far, which a `bounded` walk drops once it has no use for them.
    private mutating func forgetStreams() {
        slotOf.removeAll(keepingCapacity: true)
        streams.removeAll(keepingCapacity: true)
        prefixes.removeAll(keepingCapacity: true)
        versions.removeAll(keepingCapacity: true)
        streamHashes.removeAll(keepingCapacity: true)
        last = nil
    }

    private mutating func note(_ position: Int, _ stream: String?, _ detail: String) {
        found.append((batch.count, IntegrityReport.Problem(position: position, stream: stream, detail: detail)))
    }

    static func versionProblem(_ version: Int, after last: Int) -> String {
        "it is version \(version) of its stream, which was at version \(last)"
    }

    /// Reads the batch's stream-index and event-id entries, then reports its problems in order.
    private mutating func checkIndexes(_ report: inout IntegrityReport) throws {
        let indexed = try indexedPositions()
        let identified = try identifiedPositions()
        var next = 0
        for (offset, entry) in batch.enumerated() {
            while next < found.count, found[next].entry == offset {
                report.note(found[next].problem.position, found[next].problem.stream, found[next].problem.detail)
                next += 1
            }
            guard let slot = entry.slot else { continue }
            let stream = streams[slot]
            if bounded, let last = try versionBefore(stream, entry.version, at: entry.position) {
                report.note(entry.position, stream, Self.versionProblem(entry.version, after: last))
            }
            if indexed[offset] == Self.none {
                report.note(entry.position, stream, "the stream index has no entry for version \(entry.version)")
            } else if indexed[offset] != entry.position {
                report.note(entry.position, stream, "the stream index puts version \(entry.version) at position \(indexed[offset])")
            }
            if identified[offset] == Self.none {
                report.note(entry.position, stream, "its event id \(entry.eventId) is not in the event id index")
            } else if identified[offset] != entry.position {
                report.note(entry.position, stream, "its event id is indexed at position \(identified[offset])")
            }
        }
        // Problems noted after the batch's last record (none, unless the walk ended) stay for the next batch.
        found = found[next...].map { ($0.entry - batch.count, $0.problem) }
        batch.removeAll(keepingCapacity: true)
        if bounded { forgetStreams() }
    }

    /// Where an index has no entry for an event.
    private static let none = Int.min

    /// The position each entry's stream-index entry holds (`none`), read stream by stream: a seek
    /// for a stream's first version in the batch, then a step per version while they follow on.
    private func indexedPositions() throws -> [Int] {
        var positions = [Int](repeating: Self.none, count: batch.count)
        // The batch's entries grouped by stream, in the order the streams first appear, each group in position order.
        var start = [Int](repeating: -1, count: streams.count)
        var groups: [Int] = []
        var members = [Int](repeating: 0, count: streams.count)
        for entry in batch {
            guard let slot = entry.slot else { continue }
            if start[slot] < 0 {
                start[slot] = 0
                groups.append(slot)
            }
            members[slot] += 1
        }
        var offset = 0
        for slot in groups { (start[slot], offset) = (offset, offset + members[slot]) }
        var order = [Int](repeating: 0, count: offset)
        for (index, entry) in batch.enumerated() {
            guard let slot = entry.slot else { continue }
            order[start[slot]] = index
            start[slot] += 1
        }
        try txn.withCursor(log.streamIndexDB) { cursor in
            var keys = KeyScratch()
            var at: (slot: Int, version: Int)?
            for index in order {
                let entry = batch[index]
                let slot = entry.slot!
                let prefix = prefixes[slot]
                var found: Cursor.Record?
                if let at, at.slot == slot, at.version + 1 == entry.version,
                    let (key, value) = try cursor.next(), Self.isKey(key, of: prefix, version: entry.version)
                {
                    found = (key, value)
                } else if let (key, value) = try keys.withStreamVersion(streams[slot], entry.version, { try cursor.seek(atOrAfter: $0) }),
                    Self.isKey(key, of: prefix, version: entry.version)
                {
                    found = (key, value)
                }
                if let (_, value) = found {
                    positions[index] = Keys.decodePosition(value)
                    at = (slot, entry.version)
                } else {
                    at = nil
                    if let position = try? pending.position(of: streams[slot], version: entry.version) { positions[index] = position }
                }
            }
        }
        return positions
    }

    private static func isKey(_ key: UnsafeRawBufferPointer, of prefix: [UInt8], version: Int) -> Bool {
        key.count == prefix.count + 8 && Keys.decodeNumber(key) == version && Keys.key(key, startsWith: prefix)
    }

    /// The position each entry's event-id entry holds (or `none`), read in id order: the entry an
    /// id needs is then usually the one after the last (otherwise a seek, mostly within the page).
    private func identifiedPositions() throws -> [Int] {
        var positions = [Int](repeating: Self.none, count: batch.count)
        // By id: a radix sort of the first halves (ids of one millisecond differ in them), then by
        // the second half where those are equal.
        var order = SortedPuts.radixSorted(prefixes: batch.map(\.eventId.high))
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count, batch[order[end]].eventId.high == batch[order[start]].eventId.high { end += 1 }
            if end - start > 1 { order[start..<end].sort { batch[$0].eventId.low < batch[$1].eventId.low } }
            start = end
        }
        try txn.withCursor(log.eventIdsDB) { cursor in
            var positioned = false
            for index in order where batch[index].slot != nil {
                let id = batch[index].eventId
                var record = positioned ? try cursor.next() : nil
                if record.flatMap({ Keys.eventID(of: $0.key) }) != id {
                    record = try withUnsafeBytes(of: (id.high.bigEndian, id.low.bigEndian)) { try cursor.seek(atOrAfter: $0) }
                }
                positioned = record != nil
                if let (key, value) = record, Keys.eventID(of: key) == id { positions[index] = Keys.decodePosition(value) }
            }
        }
        return positions
    }

    /// The stream whose next version (after the walk's) the stream index puts at `position`:
    /// `guess` (what a damaged record says) first, then every stream of the log.
    private func streamHolding(_ position: Int, guess: String?) throws -> String? {
        func holds(_ stream: String) throws -> Bool {
            let next = (slotOf[stream].map { versions[$0] } ?? 0) + 1
            guard let entry = try txn.get(log.streamIndexDB, key: Keys.streamVersion(stream, next)) else {
                return (try? pending.position(of: stream, version: next)) == position
            }
            return Keys.decodePosition(entry) == position
        }
        if let guess, try holds(guess) { return guess }
        return try txn.withCursor(log.streamsDB) { cursor in
            var entry = try cursor.first()
            while let (key, _) = entry {
                let stream = String(decoding: key, as: UTF8.self)
                if try holds(stream) { return stream }
                entry = try cursor.next()
            }
            return nil
        }
    }
}
