public import FlowLogStore
import LMDB

/// `replay --verify` reads each event with the fingerprint recorded for its stream's state after it.
///
/// The `fingerprints` database is keyed by position, like the records, so a walk of the log reads
/// both in step through two cursors: one sequential pass over each, where reading the fingerprints
/// from the stream index (as logs written before the database did) meant one index descent per event
/// or a walk stream by stream with one scattered record read per event.
extension LMDBEventLog: FingerprintedLog {
    public func forEachEventWithFingerprint(from: Int, through: Int?, _ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        try reading { txn in
            try txn.withCursor(streamIndexDB) { index in
                var older = OlderLayoutFingerprints()
                guard let fingerprintsDB else {
                    // A log written before the database, opened read-only: every fingerprint is in the index.
                    try walk(from: from, through: through, txn) { event in try body(event, try older.fingerprint(of: event, &index)) }
                    return
                }
                try txn.withCursor(fingerprintsDB) { cursor in
                    var run = try FingerprintRuns.Stored(Self.run(covering: max(from, 1), &cursor))
                    try walk(from: from, through: through, txn) { event in
                        let position = event.position
                        // Runs end before this position: the next, until one does not.
                        while let current = run, current.end <= position { run = FingerprintRuns.Stored(try cursor.next()) }
                        let recorded: UInt64?
                        if let run, run.start <= position {
                            recorded = try run.checkedFingerprint(at: position, of: event.stream)
                        } else {
                            // Appended before the database existed (or by an older FlowLog), or without a fingerprint.
                            recorded = try older.fingerprint(of: event, &index)
                        }
                        return try body(event, recorded)
                    }
                }
            }
        }
    }

    /// Stream by stream through the stream table, one read transaction a stream.
    public func forEachEventWithFingerprintByStream(_ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        var going = true
        try forEachStream(from: nil) { stream, _ in
            try forEachEventWithFingerprint(inStream: stream) { event, fingerprint in
                going = try body(event, fingerprint)
                return going
            }
            return going
        }
    }

    /// One stream's events through the stream index, each with its fingerprint: from the run of the
    /// `fingerprints` database that covers its position, else from its 16-byte index value (logs
    /// written before that database). One seek of each an event.
    private func forEachEventWithFingerprint(inStream stream: String, _ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        try reading { txn in
            let older: (RecordedEvent) throws -> UInt64? = { event in
                try txn.get(self.streamIndexDB, key: Keys.streamVersion(event.stream, event.version)).flatMap(Keys.decodeFingerprint)
            }
            guard let fingerprintsDB else {
                try scan(stream: stream, fromVersion: 1, throughPosition: nil, txn) { event in try body(event, try older(event)) }
                return
            }
            try txn.withCursor(fingerprintsDB) { cursor in
                try scan(stream: stream, fromVersion: 1, throughPosition: nil, txn) { event in
                    let position = event.position
                    guard let run = FingerprintRuns.Stored(try Self.run(covering: position, &cursor)), run.start <= position, position < run.end
                    else {
                        return try body(event, try older(event))
                    }
                    return try body(event, try run.checkedFingerprint(at: position, of: event.stream))
                }
            }
        }
    }

    /// The run holding `position`, or else the first after it (the cursor stays on it).
    private static func run(covering position: Int, _ cursor: inout Cursor) throws -> Cursor.Record? {
        let after = try cursor.seek(atOrAfter: Keys.position(position))
        if let after, Keys.decodePosition(after.key) == position { return after }
        if let before = after == nil ? try cursor.last() : try cursor.previous(),
            let run = FingerprintRuns.Stored(before), run.end > position
        {
            return before
        }
        return try cursor.seek(atOrAfter: Keys.position(position))
    }
}

/// Fingerprints kept in 16-byte stream-index values (logs written before the `fingerprints`
/// database), read ahead stream by stream. A walk in position order meets each stream's versions in
/// ascending order, so one seek reads a stream's next run of index values, where a lookup per event
/// cost a descent of the index each, which made `replay --verify` of such a log much slower.
private struct OlderLayoutFingerprints {
    private var slots = StreamSlots()
    /// Per stream slot, the version of its first buffered value and the values that follow.
    private var ahead: [(first: Int, values: [UInt64?])] = []
    private var buffered = 0
    private var keys = KeyScratch()
    /// Values read per seek; beyond `limit` values buffered in all, one at a time (so memory stays
    /// bounded by the limit, however many streams a log has).
    private static let run = 64
    private static let limit = 1 << 20

    mutating func fingerprint(of event: RecordedEvent, _ index: inout Cursor) throws -> UInt64? {
        let (slot, isNew) = slots.slot(of: event.stream)
        if isNew { ahead.append((0, [])) }
        let offset = event.version - ahead[slot].first
        if offset >= 0, offset < ahead[slot].values.count { return ahead[slot].values[offset] }
        buffered -= ahead[slot].values.count
        ahead[slot] = (event.version, [])
        let prefix = Keys.streamPrefix(event.stream)
        var values: [UInt64?] = []
        var entry = try keys.withStreamVersion(event.stream, event.version) { try index.seek(atOrAfter: $0) }
        let wanted = buffered < Self.limit ? Self.run : 1
        while values.count < wanted, let (key, value) = entry, Keys.key(key, startsWith: prefix),
            Keys.decodeNumber(key) == event.version + values.count, key.count == prefix.count + 8
        {
            values.append(Keys.decodeFingerprint(value))
            entry = try index.next()
        }
        guard let first = values.first else { return nil }
        buffered += values.count
        ahead[slot] = (event.version, values)
        return first
    }
}
