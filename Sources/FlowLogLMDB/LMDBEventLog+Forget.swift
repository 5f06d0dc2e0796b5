public import FlowLogBasics
public import FlowLogStore
import LMDB

/// `flowlog forget` on LMDB, in one write transaction (see `StreamForgetting`).
///
/// Each of the stream's records keeps its envelope and its chain hash, and loses its salt and
/// payload to a check (`RecordCodec.forgottenForm`, layout 2). What was derived from the stream
/// goes with it: its stream-index entries, version, command receipts, snapshots, head, orders and
/// order pages, the fingerprints at its positions, and in the storage read model its state and
/// flags; the read model's orders keep their totals, without stream or order id, so order counts
/// and revenue still add up. Pending batch records (log schema 4) are folded first, in the same
/// transaction, so the stream's entries and rows are all in the indexes it deletes from.
extension LMDBEventLog: StreamForgetting {
    /// With a cutoff (`retain`'s batch), the age of each stream is read in the transaction that
    /// forgets it, so an append that made a session young again either committed before (and the
    /// session is kept) or waits for this transaction (and lands after it, starting the stream anew).
    public func forget(streams: [String], lastEventBefore cutoff: Timestamp?, audit: (ForgottenStream) -> NewEvent?) throws -> [ForgottenStream] {
        let readModels = try projectionDatabases(create: false)
        // Folded in bounded steps first: folded whole in the forget's transaction, the records
        // pending in a log of a million random-id sessions held 179 MB of changed pages.
        try foldPending()
        do {
            return try environment.write { txn in
                try foldAll(txn)
                var transaction = ForgetSteps(log: self, readModels: readModels, txn: txn)
                return try ForgetRules.forget(streams: streams, lastEventBefore: cutoff, audit: audit, in: &transaction)
            }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    /// The storage steps of `ForgetRules` in one LMDB write transaction.
    private struct ForgetSteps: ForgetTransaction {
        let log: LMDBEventLog
        let readModels: [Database]?
        let txn: Transaction

        var location: String { log.path }
        func logSchema() throws -> Int { try log.settings(txn).logSchema }

        func lastEventTime(of stream: String) throws -> Timestamp? {
            let version = try log.storedVersion(of: stream, txn)
            guard version > 0 else { return nil }
            return try log.event(inStream: stream, version: version, txn)?.timestamp
        }

        func forgetRecords(of stream: String) throws -> (positions: [Int], correlationIds: [String]) {
            guard try log.storedVersion(of: stream, txn) > 0 else { return ([], []) }
            var positions: [Int] = []
            var correlationIds: [String] = []
            try log.scan(stream: stream, fromVersion: 1, throughPosition: nil, txn) { event in
                positions.append(event.position)
                if let id = event.correlationId, !correlationIds.contains(id) { correlationIds.append(id) }
                return true
            }
            for position in positions { try log.forgetRecord(at: position, txn) }
            return (positions, correlationIds)
        }

        func forgetDerived(stream: String, positions: [Int]) throws {
            try log.forgetDerived(stream: stream, positions: positions, readModels: readModels, txn)
        }

        func appendAudits(_ request: AppendRequest) throws { _ = try log.append([request], txn) }
    }

    /// Replaces the record at `position` by its forgotten form (`RecordCodec.forgottenForm`): its
    /// envelope marked forgotten, a check seeded with the chain hash before it, and its own chain hash.
    fileprivate func forgetRecord(at position: Int, _ txn: Transaction) throws {
        let key = Keys.position(position)
        guard let bytes = try txn.get(eventsDB, key: key) else {
            throw FlowLogError.damaged(RecordDamage(position: position, stream: nil, problem: "the stream index points at it, but it is missing"))
        }
        guard let forgotten = RecordCodec.forgottenForm(of: bytes, previousHash: try hashBefore(position: position, txn), position: position) else {
            throw ForgetRefusal.upgradeRequired(location: path, logSchema: try settings(txn).logSchema)
        }
        try txn.put(eventsDB, key: key, value: forgotten)
    }

    fileprivate func forgetDerived(stream: String, positions: [Int], readModels: [Database]?, _ txn: Transaction) throws {
        let id = Array(stream.utf8)
        let prefix = Keys.streamPrefix(stream)
        _ = try txn.delete(streamsDB, key: id)
        for database in [streamIndexDB, commandsDB, snapshotsDB, rowsDB] + [rowPagesDB].compactMap({ $0 }) {
            try deleteAll(startingWith: prefix, in: database, txn)
        }
        if let headsDB { _ = try txn.delete(headsDB, key: id) }
        if let fingerprintsDB { try forgetFingerprints(at: positions, fingerprintsDB, txn) }
        guard let readModels else { return }
        _ = try txn.delete(readModels[1], key: id)
        _ = try txn.delete(readModels[3], key: id)
        for position in positions {
            let key = Keys.position(position)
            guard let value = try txn.get(readModels[2], key: key) else { continue }
            // A row entry is the stream (a short string: length, bytes), then the row. What stays
            // is what the domain keeps of it (`KeptRow.anonymized`: an order's total, item count
            // and currency), without the stream.
            guard let length = value.first, value.count >= 1 + Int(length),
                let row = KeptRow.decode(UnsafeRawBufferPointer(rebasing: value[(1 + Int(length))...]))
            else { continue }
            var kept = BinaryWriter(capacity: 64)
            kept.writeShortString(nil)
            row.anonymized.encode(into: &kept)
            try txn.put(readModels[2], key: key, value: kept.bytes)
        }
    }

    /// Takes the fingerprints at `positions` (ascending) out of the runs that hold them, splitting
    /// each run around them: a state's fingerprint would confirm a guess of the state.
    private func forgetFingerprints(at positions: [Int], _ database: Database, _ txn: Transaction) throws {
        var next = 0
        while next < positions.count {
            let position = positions[next]
            // The run holding `position`: the entry at it, or the last one before it.
            let found: (start: Int, bytes: [UInt8])? = try txn.withCursor(database) { cursor in
                var entry = try cursor.seek(atOrAfter: Keys.position(position))
                if entry.map({ Keys.decodePosition($0.key) }) != position { entry = entry == nil ? try cursor.last() : try cursor.previous() }
                guard let (key, value) = entry, key.count == 8 else { return nil }
                return (Keys.decodePosition(key), Array(value))
            }
            guard let (start, bytes) = found, position < start + bytes.count / 8 else {
                next += 1
                continue
            }
            let end = start + bytes.count / 8
            var removed = Set<Int>()
            while next < positions.count, positions[next] < end {
                removed.insert(positions[next])
                next += 1
            }
            _ = try txn.delete(database, key: Keys.position(start))
            var segmentStart: Int?
            for covered in start...end {
                if covered < end, !removed.contains(covered) {
                    if segmentStart == nil { segmentStart = covered }
                } else if let first = segmentStart {
                    try txn.put(database, key: Keys.position(first), value: Array(bytes[((first - start) * 8)..<((covered - start) * 8)]))
                    segmentStart = nil
                }
            }
        }
    }

    func deleteAll(startingWith prefix: [UInt8], in database: Database, _ txn: Transaction) throws {
        var keys: [[UInt8]] = []
        try txn.withCursor(database) { cursor in
            var entry = try cursor.seek(atOrAfter: prefix)
            while let (key, _) = entry, Keys.key(key, startsWith: prefix) {
                keys.append(Array(key))
                entry = try cursor.next()
            }
        }
        for key in keys { _ = try txn.delete(database, key: key) }
    }
}
