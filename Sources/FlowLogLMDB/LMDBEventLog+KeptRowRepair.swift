import FlowLogBasics
public import FlowLogStore
import LMDB

/// The repair of what earlier FlowLogs kept wrong beside the events (`LogDomain.misrecordedFingerprint`), for
/// `flowlog upgrade`: each stream that has kept rows is folded from its events; rows that differ
/// from the fold's are rewritten (with their pages), and recorded fingerprints that match the
/// defect are set to the fold's. One write transaction: all of it or none. Events, their chain
/// hashes and every other fingerprint stay as they are. Pending batch records (log schema 4) are
/// folded first, in the same transaction, so the rows it rewrites are all in the row index; a dry
/// run reads them where they are.
extension LMDBEventLog: KeptRowRepairing {
    public func repairKeptRows(dryRun: Bool) throws -> KeptRowRepair {
        do {
            if dryRun { return try reading { txn in try repairKeptRows(txn, writing: false) } }
            // Folded in bounded steps first, as `forget` does; then only what came meanwhile.
            try foldPending()
            return try environment.write { txn in
                try foldAll(txn)
                return try repairKeptRows(txn, writing: true)
            }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    private func repairKeptRows(_ txn: Transaction, writing: Bool) throws -> KeptRowRepair {
        var report = KeptRowRepair()
        let pending = try PendingIndex.load(self, txn)
        var scratch = BinaryWriter(capacity: 512)
        try forEachStreamWithKeptRows(txn) { stream in
            var state = StreamState.initial
            // The version of the event that kept each row, and the fingerprints to set.
            var rowVersions: [Int] = []
            var fixes: [(position: Int, fingerprint: UInt64)] = []
            try scan(stream: stream, fromVersion: 1, throughPosition: nil, pending: pending, txn) { event in
                state.apply(event)
                if KeptRow(for: event.event) != nil { rowVersions.append(event.version) }
                if let misrecorded = LogDecider.misrecordedFingerprint(of: state.value, scratch: &scratch),
                    let fingerprintsDB, try storedFingerprint(at: event.position, fingerprintsDB, txn) == misrecorded
                {
                    fixes.append((event.position, state.fingerprint(scratch: &scratch)))
                }
                return true
            }
            let folded = KeptRows(state)
            let stored = try keptRows(of: stream, count: try keptRowCount(of: stream, pending, txn), pending, txn)
            if stored?.rows != folded.rows {
                report.streams += 1
                report.rows += folded.count
                if writing {
                    let prefix = Keys.streamPrefix(stream)
                    try deleteAll(startingWith: prefix, in: rowsDB, txn)
                    if let rowPagesDB { try deleteAll(startingWith: prefix, in: rowPagesDB, txn) }
                    for (offset, row) in folded.rows.enumerated() {
                        try keepRow(KeptRow(row), number: offset + 1, stream: stream, version: rowVersions[offset], txn)
                    }
                }
            }
            report.fingerprints += fixes.count
            if writing, let fingerprintsDB {
                for fix in fixes { try setFingerprint(fix.fingerprint, at: fix.position, fingerprintsDB, txn) }
            }
        }
        return report
    }

    /// Every stream that has a row in the row index, in key order, named a chunk at a time: `body`
    /// rewrites rows of the index the chunk was read from, and a log of many sessions has a
    /// stream with rows for each order placed, too many to list at once.
    private func forEachStreamWithKeptRows(_ txn: Transaction, _ body: (String) throws -> Void) throws {
        var after: [UInt8]?
        while true {
            var chunk: [String] = []
            try txn.withCursor(rowsDB) { cursor in
                var entry = try after.map { try cursor.seek(atOrAfter: $0) } ?? cursor.first()
                while let (key, _) = entry, key.count > 9, chunk.count < Self.streamsPerPage {
                    let stream = String(decoding: key[..<(key.count - 9)], as: UTF8.self)
                    chunk.append(stream)
                    // Past every key of this stream: its prefix, then the highest number.
                    entry = try cursor.seek(atOrAfter: Keys.streamPrefix(stream) + [UInt8](repeating: 0xFF, count: 9))
                }
            }
            for stream in chunk { try body(stream) }
            guard chunk.count == Self.streamsPerPage, let last = chunk.last else { return }
            after = Keys.streamPrefix(last) + [UInt8](repeating: 0xFF, count: 9)
        }
    }

    private func storedFingerprint(at position: Int, _ database: Database, _ txn: Transaction) throws -> UInt64? {
        try txn.withCursor(database) { cursor in
            guard let run = try runEntry(covering: position, &cursor), run.isWellFormed, run.start <= position, position < run.end else { return nil }
            return run.fingerprint(at: position)
        }
    }

    private func setFingerprint(_ fingerprint: UInt64, at position: Int, _ database: Database, _ txn: Transaction) throws {
        let found: (start: Int, bytes: [UInt8])? = try txn.withCursor(database) { cursor in
            guard let run = try runEntry(covering: position, &cursor), run.isWellFormed, run.start <= position, position < run.end else { return nil }
            return (run.start, Array(run.bytes))
        }
        guard let (start, found) = found else { return }
        var bytes = found
        withUnsafeBytes(of: fingerprint.littleEndian) { bytes.replaceSubrange((position - start) * 8..<(position - start + 1) * 8, with: $0) }
        try txn.put(database, key: Keys.position(start), value: bytes)
    }

    /// The fingerprint run at or before `position`.
    private func runEntry(covering position: Int, _ cursor: inout Cursor) throws -> FingerprintRuns.Stored? {
        var entry = try cursor.seek(atOrAfter: Keys.position(position))
        if entry.map({ Keys.decodePosition($0.key) }) != position { entry = entry == nil ? try cursor.last() : try cursor.previous() }
        return FingerprintRuns.Stored(entry)
    }
}
