import FlowLogBasics
public import FlowLogStore
import FlowLogSystem
import LMDB

extension LMDBEventLog: LogFollowing {
    // MARK: Reading

    public func version(of stream: String) throws -> Int {
        try reading { txn in try storedVersion(of: stream, txn) }
    }

    public func receipt(stream: String, commandId: String) throws -> CommandReceipt? {
        try reading { txn in try storedReceipt(stream: stream, commandId: commandId, txn) }
    }

    public func lastPosition() throws -> Int {
        try reading { txn in try head(txn).position }
    }

    /// Every event in the range; forgotten records are left out (they belong to no stream).
    public func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try reading { txn in try walk(from: from, through: through, txn, body) }
    }

    /// Every record in the range, forgotten ones included (`StreamForgetting`).
    public func forEachRecord(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try reading { txn in try walk(from: from, through: through, includingForgotten: true, txn, body) }
    }

    /// The records from `from` through `through` in position order, through one cursor, each checked
    /// against its predecessor's chain hash and decoded into one reused record.
    /// Forgotten records are checked and left out, unless `includingForgotten`.
    func walk(
        from: Int, through: Int?, includingForgotten: Bool = false, _ txn: Transaction,
        _ body: (RecordedEvent) throws -> Bool
    ) throws {
        let start = max(from, 1)
        if let through, through < start { return }
        // Past the end there is nothing to read (and no predecessor to check the chain against).
        guard start <= (try head(txn).position) else { return }
        var previousHash = try hashBefore(position: start, txn)
        var expected = start
        // Read ahead: a walk steps through a run of records, a batch per guarded call into LMDB.
        try txn.withCursor(eventsDB, readingAhead: true) { cursor in
            // Local to this closure: a variable it captured was copied each time it was passed on.
            var event = RecordedEvent.placeholder
            var record = try cursor.seek(atOrAfter: Keys.position(start))
            while let (key, value) = record {
                let position = Keys.decodePosition(key)
                if let through, position > through { return }
                guard position == expected else {
                    throw FlowLogError.damaged(
                        RecordDamage(position: expected, stream: nil, problem: "it is missing (the next stored position is \(position))"))
                }
                previousHash = try decode(value, position: position, previousHash: previousHash, into: &event)
                if includingForgotten || !event.isForgotten {
                    guard try body(event) else { return }
                }
                expected += 1
                record = try cursor.next()
            }
        }
    }

    public func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try reading { txn in
            try scan(stream: stream, fromVersion: 1, throughPosition: throughPosition, txn, body)
        }
    }

    /// The state from the stream's head (when it is not past `throughPosition`) or its latest snapshot
    /// at or before it that today's reducers wrote, then the events after it: O(interval) work
    /// however long the stream is.
    public func streamState(ofStream stream: String, throughPosition: Int?) throws -> (state: StreamState, version: Int) {
        try reading { txn in try state(ofStream: stream, throughPosition: throughPosition, txn) }
    }

    func state(
        ofStream stream: String, throughPosition: Int?, pending: PendingIndex? = nil, slimmingPast: Int? = nil,
        _ txn: Transaction
    ) throws -> (state: StreamState, version: Int) {
        var pending = pending
        return try state(ofStream: stream, throughPosition: throughPosition, pending: &pending, slimmingPast: slimmingPast, txn)
    }

    /// `pending`: the pending batch records, loaded here the first time a stream with events needs
    /// them and kept for the caller's next stream (a run of new sessions never loads them).
    func state(
        ofStream stream: String, throughPosition: Int?, pending: inout PendingIndex?, slimmingPast: Int?,
        _ txn: Transaction
    ) throws -> (state: StreamState, version: Int) {
        // A stream without a stored version has no events (every append stores the versions it
        // reaches, and the append checks commands against them): one lookup answers the first
        // command of a new session, where a head, a snapshot, the stream index and the pending
        // records were searched for nothing.
        guard try storedVersion(of: stream, txn) > 0 else { return (StreamState.initial, 0) }
        return try stateWithEvents(ofStream: stream, throughPosition: throughPosition, pending: &pending, slimmingPast: slimmingPast, txn)
    }

    /// `state(ofStream:…)` of a stream whose stored version the caller read already and found past 0.
    func stateWithEvents(
        ofStream stream: String, throughPosition: Int?, pending: inout PendingIndex?, slimmingPast: Int?,
        _ txn: Transaction
    ) throws -> (state: StreamState, version: Int) {
        // The head is the newest state kept; past positions come from snapshots.
        if pending == nil { pending = try PendingIndex.load(self, txn) }
        let pending = pending!
        let (start, startVersion) =
            try head(of: stream, throughPosition: throughPosition, slimmingPast: slimmingPast, pending, txn)
            ?? latestSnapshot(of: stream, throughPosition: throughPosition, pending, txn) ?? (StreamState.initial, 0)
        var fold = StreamFold(start, version: startVersion)
        try scan(stream: stream, fromVersion: startVersion + 1, throughPosition: throughPosition, pending: pending, txn) { event in
            fold.fold(event)
            return true
        }
        return fold.folded
    }

    /// One stream's events through the stream index, then its pending entries (`PendingIndex`),
    /// each checked against its chain hash. The records are read through one cursor: the record
    /// before each (whose stored hash seeds the check) and the record itself are one descent and
    /// one step, and a run of the stream's events at adjacent positions (a session's visit) needs
    /// no descent at all.
    func scan(
        stream: String, fromVersion: Int, throughPosition: Int?, pending: PendingIndex? = nil, _ txn: Transaction,
        _ body: (RecordedEvent) throws -> Bool
    ) throws {
        let prefix = Keys.streamPrefix(stream)
        let pending = try pending ?? PendingIndex.load(self, txn)
        try txn.withCursor(streamIndexDB) { index in
            try txn.withCursor(eventsDB) { records in
                var expectedVersion = fromVersion
                var event = RecordedEvent.placeholder
                // The position the records cursor is on, and that record's chain hash.
                var at = 0
                var atHash = RecordCodec.genesisHash
                /// Reads the event at `position`, the stream's `expectedVersion`; `false` ends the scan.
                func visit(_ position: Int) throws -> Bool {
                    if let throughPosition, position > throughPosition { return false }
                    var previousHash = RecordCodec.genesisHash
                    var record: Cursor.Record?
                    if at > 0, at == position - 1 {
                        previousHash = atHash
                        record = try records.next()
                    } else if position > 1 {
                        let before = try withUnsafeBytes(of: UInt64(position - 1).bigEndian) { try records.seek(atOrAfter: $0) }
                        guard let (beforeKey, beforeValue) = before, Keys.decodePosition(beforeKey) == position - 1,
                            let hash = RecordCodec.storedHash(of: beforeValue)
                        else {
                            throw FlowLogError.damaged(RecordDamage(position: position - 1, stream: nil, problem: "it is missing or truncated"))
                        }
                        previousHash = hash
                        record = try records.next()
                    } else {
                        record = try withUnsafeBytes(of: UInt64(position).bigEndian) { try records.seek(atOrAfter: $0) }
                    }
                    guard let (recordKey, bytes) = record, Keys.decodePosition(recordKey) == position else {
                        throw FlowLogError.damaged(
                            RecordDamage(position: position, stream: stream, problem: "the stream index points at it, but it is missing"))
                    }
                    atHash = try decode(bytes, position: position, previousHash: previousHash, into: &event)
                    at = position
                    guard event.stream == stream, event.version == expectedVersion else {
                        throw FlowLogError.damaged(
                            RecordDamage(
                                position: position, stream: stream,
                                problem:
                                    "the stream index says version \(expectedVersion) of \(stream), the record says version \(event.version) of \(event.stream)"
                            ))
                    }
                    guard try body(event) else { return false }
                    expectedVersion += 1
                    return true
                }
                var entry = try index.seek(atOrAfter: Keys.streamVersion(stream, fromVersion))
                while let (key, value) = entry, Keys.key(key, startsWith: prefix) {
                    guard try visit(Keys.decodePosition(value)) else { return }
                    entry = try index.next()
                }
                try pending.forEachEntry(of: stream, fromVersion: expectedVersion) { version, position in
                    guard version == expectedVersion else {
                        throw FlowLogError.damaged(
                            RecordDamage(
                                position: position, stream: stream,
                                problem: "a batch record says version \(version) of \(stream), where version \(expectedVersion) was next"))
                    }
                    return try visit(position)
                }
            }
        }
    }

    /// Version `version` of a stream's events, or `nil` when the stream has no such version.
    public func event(inStream stream: String, version: Int) throws -> RecordedEvent? {
        try reading { txn in try event(inStream: stream, version: version, txn) }
    }

    /// As `event(inStream:version:)`, in a transaction of the caller's (`retain` reads a session's
    /// last event in the one that forgets it).
    func event(inStream stream: String, version: Int, _ txn: Transaction) throws -> RecordedEvent? {
        guard version >= 1, let position = try indexedPosition(ofStream: stream, version: version, pending: { try PendingIndex.load(self, txn) }, txn)
        else {
            return nil
        }
        guard let bytes = try txn.get(eventsDB, key: Keys.position(position)) else {
            throw FlowLogError.damaged(RecordDamage(position: position, stream: stream, problem: "the stream index points at it, but it is missing"))
        }
        return try decode(bytes, position: position, previousHash: try hashBefore(position: position, txn)).0
    }

    /// The position of the stream's `version`: its stream-index entry, else a pending one (log
    /// schema 4; `pending` is asked only then).
    func indexedPosition(ofStream stream: String, version: Int, pending: () throws -> PendingIndex, _ txn: Transaction) throws -> Int? {
        if let entry = try txn.get(streamIndexDB, key: Keys.streamVersion(stream, version)) { return Keys.decodePosition(entry) }
        return try pending().position(of: stream, version: version)
    }

    /// The `streams` table in key order, `streamsPerPage` entries to a read transaction: `body` runs
    /// outside it, so it may write to the log, and no reader is held open for a whole long walk.
    public func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws {
        // LMDB refuses an empty key; every stream id is at or after the empty one.
        var next = start.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        var skipFirst = false
        while true {
            let page: [(String, Int)] = try reading { txn in
                try txn.withCursor(streamsDB) { cursor in
                    var page: [(String, Int)] = []
                    page.reserveCapacity(Self.streamsPerPage)
                    var entry = try next.map { try cursor.seek(atOrAfter: $0) } ?? cursor.first()
                    if skipFirst, let (key, _) = entry, key.elementsEqual(next ?? []) { entry = try cursor.next() }
                    while let (key, value) = entry, page.count < Self.streamsPerPage {
                        page.append((String(decoding: key, as: UTF8.self), Keys.decodeInt(value)))
                        entry = try cursor.next()
                    }
                    return page
                }
            }
            for (stream, version) in page { guard try body(stream, version) else { return } }
            guard page.count == Self.streamsPerPage, let last = page.last else { return }
            (next, skipFirst) = (Array(last.0.utf8), true)
        }
    }

    /// Streams a read transaction of `forEachStream` lists.
    static let streamsPerPage = 1_024

    /// LMDB has no notification of commits by other processes: a short poll of the last position,
    /// which costs one read transaction (a few microseconds) each time.
    public func waitForEvents(after position: Int, timeout: Double) throws -> Int {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            let last = try lastPosition()
            if last > position || MonotonicClock.seconds() >= deadline { return last }
            usleep(50_000)
        }
    }
}
