import FlowLogBasics
public import FlowLogStore
import LMDB

extension LMDBEventLog: SnapshotStore {
    // MARK: Snapshots

    /// Events per stream between snapshots (0: none). Every writer of the log uses the stored value.
    public static let defaultSnapshotInterval = AppendRules.defaultSnapshotInterval

    public func snapshotInterval() throws -> Int {
        try reading { txn in try storedSnapshotInterval(txn) }
    }

    /// Sets the snapshot interval for every writer of this log; 0 turns snapshots off.
    public func setSnapshotInterval(_ interval: Int) throws {
        precondition(interval >= 0)
        do {
            try environment.write { txn in try txn.put(meta, key: Array("snapshotInterval".utf8), value: Keys.littleEndian(UInt64(interval))) }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    func storedSnapshotInterval(_ txn: Transaction) throws -> Int {
        guard let value = try txn.get(meta, key: Array("snapshotInterval".utf8)) else { return Self.defaultSnapshotInterval }
        return Keys.decodeInt(value)
    }

    func writeSnapshot(_ state: StreamState, stream: String, version: Int, position: Int, _ txn: Transaction) throws {
        try txn.put(snapshotsDB, key: Keys.streamVersion(stream, version), value: Self.snapshotValue(state, position: position))
    }

    /// Replaces the stream's head: its version, then a snapshot value (so a head is read as one).
    func writeHead(_ state: StreamState, stream: String, version: Int, position: Int, _ txn: Transaction) throws {
        guard let headsDB else { return }
        try txn.put(headsDB, key: Array(stream.utf8), value: Keys.littleEndian(UInt64(version)) + Self.snapshotValue(state, position: position))
    }

    /// The stream's head, when it is at or before `throughPosition`, intact and from today's reducers.
    /// `slimmingPast`: a head with more kept rows than this comes with the latest only made, the
    /// others remembered by their ids' hashes (`KeptRows(latestOf:)`), as a writer's cache keeps it.
    func head(
        of stream: String, throughPosition: Int?, slimmingPast: Int? = nil, _ pending: PendingIndex,
        _ txn: Transaction
    ) throws -> (state: StreamState, version: Int)? {
        guard let headsDB, let value = try txn.get(headsDB, key: Array(stream.utf8)), value.count > 8 else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: value[8...])
        guard body.count > 24, let verified = BinaryWriter.verifiedBody(of: body) else { return nil }
        if let throughPosition, Keys.decodeInt(verified, at: 8) > throughPosition { return nil }
        guard var head = Self.decodeSnapshot(version: Keys.decodeInt(value), value: body),
            let rows = try keptRows(
                of: stream, count: head.keptRowCount, room: AppendRules.headInterval,
                slim: slimmingPast.map { head.keptRowCount > $0 } ?? false, pending, txn)
        else { return nil }
        head.state.restoreKeptRows(rows)
        return (head.state, head.version)
    }

    /// A `snapshots` value: the reducer version, the position, the state without its kept rows, a checksum.
    static func snapshotValue(_ state: StreamState, position: Int) -> [UInt8] {
        var encoded = BinaryWriter(capacity: 256)
        state.encodeWithoutKeptRows(into: &encoded)
        var value = BinaryWriter(capacity: encoded.count + 28)
        value.write(UInt64(StreamState.reducerVersion))
        value.write(UInt64(position))
        encoded.withUnsafeBytes { value.write(bytes: $0) }
        value.writeChecksum()
        return value.bytes
    }

    /// The latest intact snapshot of `stream` written by today's reducers at or before
    /// `throughPosition`, with its kept rows. The stream's versions are the index's, then pending ones.
    func latestSnapshot(of stream: String, throughPosition: Int?, _ pending: PendingIndex, _ txn: Transaction) throws -> (StreamState, Int)? {
        var ceiling = try storedVersion(of: stream, txn)
        if let throughPosition {
            // The stream's version at that position: versions and positions rise together, so bisect.
            var low = 0
            var high = ceiling
            while low < high {
                let middle = (low + high + 1) / 2
                guard let position = try indexedPosition(ofStream: stream, version: middle, pending: { pending }, txn) else { break }
                if position <= throughPosition { low = middle } else { high = middle - 1 }
            }
            ceiling = low
        }
        guard ceiling > 0 else { return nil }
        let prefix = Keys.streamPrefix(stream)
        return try txn.withCursor(snapshotsDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, ceiling + 1))
            entry = entry == nil ? try cursor.last() : try cursor.previous()
            while let (key, value) = entry, Keys.key(key, startsWith: prefix) {
                if var snapshot = Self.decodeSnapshot(key: key, value: value),
                    let rows = try keptRows(of: stream, count: snapshot.keptRowCount, pending, txn)
                {
                    snapshot.state.restoreKeptRows(rows)
                    return (snapshot.state, snapshot.version)
                }
                entry = try cursor.previous()
            }
            return nil
        }
    }

    /// A snapshot's state and version, or `nil` when it is damaged or from other reducers.
    static func decodeSnapshot(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> (state: StreamState, version: Int, keptRowCount: Int)? {
        decodeSnapshot(version: Keys.decodeNumber(key), value: value)
    }

    /// A snapshot value's state, at `version`; `nil` when it is damaged or from other reducers.
    static func decodeSnapshot(version: Int, value: UnsafeRawBufferPointer) -> (state: StreamState, version: Int, keptRowCount: Int)? {
        guard value.count > 24, let body = BinaryWriter.verifiedBody(of: value),
            Keys.decodeInt(body) == StreamState.reducerVersion,
            let (state, count) = StreamState.decodeWithoutKeptRows(UnsafeRawBufferPointer(rebasing: body[16...]))
        else { return nil }
        return (state, version, count)
    }

    /// How many snapshots the log holds (for status and tests).
    public func snapshotCount() throws -> Int {
        try reading { txn in try txn.count(snapshotsDB) }
    }

}
