import FlowDomain
import FlowLog
import LMDB

/// `flowlog verify` on LMDB: the hash chain and contiguity of the records, and the indexes against them.
extension LMDBEventLog: IntegrityChecking {
    public func checkIntegrity(progress: Progress?) throws -> IntegrityReport {
        var report = IntegrityReport()
        func note(_ position: Int, _ stream: String?, _ detail: String) { report.note(position, stream, detail) }
        try reading { txn in
            var versions: [String: Int] = [:]
            var previousHash = RecordCodec.genesisHash
            var expected = 1
            try txn.withCursor(eventsDB) { cursor in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    let position = Keys.decodePosition(key)
                    if position != expected {
                        note(expected, nil, position > expected ? "missing (positions \(expected)…\(position - 1) are not in the log)" : "out of order")
                    }
                    do {
                        let (record, hash) = try RecordCodec.decode(value, expectedPosition: position, previousHash: previousHash)
                        previousHash = hash
                        report.events += 1
                        let last = versions[record.stream] ?? 0
                        if record.version != last + 1 {
                            note(position, record.stream, "it is version \(record.version) of its stream, which was at version \(last)")
                        }
                        versions[record.stream] = max(last, record.version)
                        if let index = try txn.get(streamIndexDB, key: Keys.streamVersion(record.stream, record.version)) {
                            if Keys.decodePosition(index) != position { note(position, record.stream, "the stream index puts version \(record.version) at position \(Keys.decodePosition(index))") }
                        } else {
                            note(position, record.stream, "the stream index has no entry for version \(record.version)")
                        }
                        if let indexed = try txn.get(eventIdsDB, key: Keys.eventID(record.eventId)) {
                            if Keys.decodePosition(indexed) != position { note(position, record.stream, "its event id is indexed at position \(Keys.decodePosition(indexed))") }
                        } else {
                            note(position, record.stream, "its event id \(record.eventId) is not in the event id index")
                        }
                    } catch let damage as RecordDamage {
                        // Count what can still be read of it, so the indexes are not blamed as well.
                        report.events += 1
                        // Its stored version may be what was damaged: the stream index says whose next
                        // version it is, so the stream's later events are not blamed as well.
                        let readable = RecordCodec.decodeUnverified(value)
                        let owner = try streamHolding(position, next: versions, guess: readable?.stream, txn)
                        if let owner { versions[owner] = (versions[owner] ?? 0) + 1 }
                        note(position, damage.stream ?? owner ?? readable?.stream, damage.problem)
                        // Carry on from what the damaged record stored, so one bad record is reported once.
                        previousHash = RecordCodec.storedHash(of: value) ?? previousHash
                    }
                    expected = position + 1
                    progress?.advance(to: position)
                    entry = try cursor.next()
                }
            }
            try txn.withCursor(streamsDB) { cursor in
                var entry = try cursor.first()
                while let (key, value) = entry {
                    let stream = String(decoding: key, as: UTF8.self)
                    let head = Keys.decodeInt(value)
                    if versions[stream] != head {
                        note(0, stream, "the stream's stored version is \(head), but its events go up to version \(versions[stream] ?? 0)")
                    }
                    versions[stream] = nil
                    report.streams += 1
                    entry = try cursor.next()
                }
            }
            for (stream, version) in versions {
                note(0, stream, "the stream has events up to version \(version) but no stored version")
            }
            let indexedIds = try txn.count(eventIdsDB)
            if indexedIds != report.events {
                note(0, nil, "the event id index holds \(indexedIds) ids for \(report.events) events (an event was removed, or an index entry)")
            }
        }
        progress?.finish()
        return report
    }

    /// The stream whose next version (after `versions`) the stream index puts at `position`:
    /// `guess` (what a damaged record says) first, then every stream of the log.
    private func streamHolding(_ position: Int, next versions: [String: Int], guess: String?, _ txn: Transaction) throws -> String? {
        func holds(_ stream: String) throws -> Bool {
            guard let entry = try txn.get(streamIndexDB, key: Keys.streamVersion(stream, (versions[stream] ?? 0) + 1)) else { return false }
            return Keys.decodePosition(entry) == position
        }
        if let guess, try holds(guess) { return guess }
        return try txn.withCursor(streamsDB) { cursor in
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
