import FlowLogStore
import LMDB

/// `verify` on a log of more streams than the walk keeps (`IntegrityWalk.bounded`): a slot per stream
/// of a batch only, so the memory does not grow with the streams. What the walk of the records
/// learnt from each stream's records before, it asks of the stream index: a record's version
/// follows on when the index puts the version before it earlier and the one after it later (or
/// nowhere); each stream's versions, their order and its stored version are read by walking the
/// index and the `streams` table together, both in stream id order. The index is what the walk
/// checks against the records, entry by entry or by digest, so a log that is fine agrees with it.
extension IntegrityWalk {
    /// The version the record's stream was at before `position` when `version` does not follow it
    /// (`nil` when it does): its highest version the index puts at an earlier position.
    func versionBefore(_ stream: String, _ version: Int, at position: Int) throws -> Int? {
        let previous = version > 1 ? try indexedPosition(stream, version - 1) : 0
        let next = try indexedPosition(stream, version + 1)
        if let previous, previous < position, next.map({ $0 > position }) ?? true { return nil }
        var last = 0
        try forEachIndexed(stream) { indexed, at in
            if at < position { last = max(last, indexed) }
        }
        return last == version - 1 ? nil : last
    }

    /// The stream whose entry in the stream index (or a batch record) points at the damaged record at
    /// `position`: `guess` (what the record says) first, then the whole index.
    func streamIndexed(at position: Int, guess: String?) throws -> String? {
        if let guess {
            var holds = false
            try forEachIndexed(guess) { _, at in holds = holds || at == position }
            if holds { return guess }
        }
        let indexed: String? = try txn.withCursor(log.streamIndexDB) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                if key.count > 9, Keys.decodePosition(value) == position { return String(decoding: key[..<(key.count - 9)], as: UTF8.self) }
                entry = try cursor.next()
            }
            return nil
        }
        if let indexed { return indexed }
        var owner: String?
        pending.forEachEntry { stream, _, at in
            if owner == nil, at == position { owner = String(decoding: stream, as: UTF8.self) }
        }
        return owner
    }

    /// Each stream's stored version against the last version the index holds for it, then every
    /// stream the index names but the log does not list, in stream id order: the two walked
    /// together. A stream whose entries do not run 1, 2, 3… at rising positions sets
    /// `disorderedStreams` (the walk of the records names those records).
    mutating func checkStreamsInIndex(_ report: inout IntegrityReport) throws {
        var unlisted = IntegrityReport()
        try txn.withCursor(log.streamsDB) { listing in
            try txn.withCursor(log.streamIndexDB, readingAhead: true) { index in
                var listed = try listing.first().map { (Array($0.key), Keys.decodeInt($0.value)) }
                var entry = try index.first()
                var run = try nextRun(&index, &entry)
                while listed != nil || run != nil {
                    if let (stream, head) = listed, run.map({ !$0.stream.lexicographicallyPrecedes(stream) }) ?? true {
                        var top: Int?
                        if let indexed = run, indexed.stream == stream {
                            top = indexed.top
                            run = try nextRun(&index, &entry)
                        } else {
                            top = pendingRun(of: String(decoding: stream, as: UTF8.self), after: 0, at: 0)
                        }
                        if top != head {
                            report.note(
                                0, String(decoding: stream, as: UTF8.self),
                                "the stream's stored version is \(head), but its events go up to version \(top ?? 0)")
                        }
                        report.streams += 1
                        listed = try listing.next().map { (Array($0.key), Keys.decodeInt($0.value)) }
                    } else if let indexed = run {
                        unlisted.note(
                            0, String(decoding: indexed.stream, as: UTF8.self),
                            "the stream has events up to version \(indexed.top) but no stored version")
                        run = try nextRun(&index, &entry)
                    }
                }
            }
        }
        for problem in unlisted.problems { report.note(problem.position, problem.stream, problem.detail) }
        report.unlistedProblems += unlisted.unlistedProblems
    }

    /// The stream of the index entry at `entry` and its last version, its pending entries included,
    /// with `entry` moved past the stream's entries.
    private mutating func nextRun(_ cursor: inout Cursor, _ entry: inout Cursor.Record?) throws -> (stream: [UInt8], top: Int)? {
        guard let (first, _) = entry else { return nil }
        let stream = Array(first[..<max(first.count - 9, 0)])
        let prefix = stream + [0]
        var (top, last) = (0, 0)
        repeat {
            let (key, value) = entry!
            (top, last) = follow(Keys.decodeNumber(key), Keys.decodePosition(value), after: top, at: last)
            entry = try cursor.next()
        } while entry.map { $0.key.count == prefix.count + 8 && Keys.key($0.key, startsWith: prefix) } ?? false
        return (stream, pendingRun(of: String(decoding: stream, as: UTF8.self), after: top, at: last) ?? top)
    }

    /// The last of the stream's pending versions after `top` (`nil` if it has none).
    private mutating func pendingRun(of stream: String, after top: Int, at last: Int) -> Int? {
        var run: (top: Int, last: Int)?
        try? pending.forEachEntry(of: stream, fromVersion: top + 1) { version, position in
            run = follow(version, position, after: run?.top ?? top, at: run?.last ?? last)
            return true
        }
        return run?.top
    }

    private mutating func follow(_ version: Int, _ position: Int, after top: Int, at last: Int) -> (top: Int, last: Int) {
        if version != top + 1 || position <= last { disorderedStreams = true }
        return (max(top, version), position)
    }

    /// The position the stream index (or a batch record) gives the stream's `version`.
    private func indexedPosition(_ stream: String, _ version: Int) throws -> Int? {
        if let value = try txn.get(log.streamIndexDB, key: Keys.streamVersion(stream, version)) { return Keys.decodePosition(value) }
        return try? pending.position(of: stream, version: version)
    }

    /// The stream's (version, position) pairs in the index, then its pending ones.
    private func forEachIndexed(_ stream: String, _ body: (_ version: Int, _ position: Int) -> Void) throws {
        let prefix = Keys.streamPrefix(stream)
        var top = 0
        try txn.withCursor(log.streamIndexDB) { cursor in
            var entry = try prefix.withUnsafeBytes { try cursor.seek(atOrAfter: $0) }
            while let (key, value) = entry, key.count == prefix.count + 8, Keys.key(key, startsWith: prefix) {
                top = Keys.decodeNumber(key)
                body(top, Keys.decodePosition(value))
                entry = try cursor.next()
            }
        }
        try? pending.forEachEntry(of: stream, fromVersion: top + 1) { version, position in
            body(version, position)
            return true
        }
    }
}
