import FlowLogStore
import LMDB

/// `verify`'s checks of the batch records (log schema 4) themselves: each value's checksum and
/// layout, its streams in id order, its kept rows readable and numbered on from the stream's
/// earlier ones. Whether each entry points at the right record is checked with the stream index
/// (`IntegrityWalk` and `IndexDigest` count pending entries as index entries).
extension LMDBEventLog {
    func checkBatchRecords(_ report: inout IntegrityReport, _ txn: Transaction) throws {
        guard let batchesDB else { return }
        let what = "its batch record (the stream index and kept rows of the commit from this position)"
        let mend = "restore the log from a backup, or export it and import the export into a new log"
        try txn.withCursor(batchesDB) { cursor in
            var entry = try cursor.first()
            var previous = 0
            while let (key, value) = entry {
                let position = Keys.decodePosition(key)
                defer { previous = position }
                guard key.count == 8, position > previous else {
                    report.note(position, nil, "the batches database holds a key that is not a position after the last one; \(mend)")
                    entry = try cursor.next()
                    continue
                }
                guard let record = BatchRecordView(key: position, bytes: value) else {
                    report.note(position, nil, "\(what) is cut short or of an unknown format; \(mend)")
                    entry = try cursor.next()
                    continue
                }
                if !record.isChecksumValid {
                    report.note(position, nil, "\(what) does not match its checksum: its bytes were changed; \(mend)")
                }
                var last: [UInt8]?
                var events = 0
                for index in 0..<record.streamCount {
                    guard let stream = record.stream(at: index) else {
                        report.note(position, nil, "\(what) has a stream entry that runs past its end; \(mend)")
                        break
                    }
                    let name = String(decoding: stream.id, as: UTF8.self)
                    if let last, !last.lexicographicallyPrecedes(stream.id) {
                        report.note(position, name, "\(what) lists its streams out of order, so readers would not find them; \(mend)")
                    }
                    last = Array(stream.id)
                    events += stream.eventCount
                    if !stream.forEachRow({ _, _, row in
                        if KeptRow.decode(row) == nil { report.note(position, name, "\(what) holds a kept row that cannot be read; \(mend)") }
                    }) {
                        report.note(position, name, "\(what) has kept rows that run past its end; \(mend)")
                    }
                }
                if events != record.eventCount {
                    report.note(position, nil, "\(what) says it holds \(record.eventCount) events, but its streams hold \(events); \(mend)")
                }
                entry = try cursor.next()
            }
        }
    }
}
