import FlowLogBasics
import FlowLogStore
import LMDB

/// The rows the domain keeps beside the events (`KeptRow`, through `AppendTransaction.keep`), in
/// the order they were kept: `rowsDB` holds each (stream, number → version, row), `rowPagesDB`
/// each full page of them in one value, so that a stream with tens of thousands of rows reads
/// them in a few dozen gets rather than one cursor step each. In a schema-4 log the rows kept
/// since the last fold are in batch records (`PendingIndex`), after the indexed ones.
extension LMDBEventLog {
    /// Keeps row `number` (from 1) of a stream, and its page when the row completes one.
    func keepRow(_ row: KeptRow, number: Int, stream: String, version: Int, _ txn: Transaction) throws {
        var encoded = BinaryWriter(capacity: 64)
        row.encode(into: &encoded)
        try encoded.withUnsafeBytes { try keepRow(encoded: $0, number: number, stream: stream, version: version, txn) }
    }

    /// As `keepRow(_:number:stream:version:_:)`, with the row as `KeptRow.encode` wrote it (a fold's).
    func keepRow(encoded row: UnsafeRawBufferPointer, number: Int, stream: String, version: Int, _ txn: Transaction) throws {
        var value = BinaryWriter(capacity: 8 + row.count)
        value.write(UInt64(version))
        value.write(bytes: row)
        try txn.put(rowsDB, key: Keys.streamVersion(stream, number), value: value.bytes)
        if number % Self.rowsPerPage == 0 {
            try writeRowPage(number / Self.rowsPerPage, of: stream, txn)
        }
    }

    /// Rows per page: about 27 KB of orders, a run of seven contiguous pages of the map.
    static let rowsPerPage = 1_024

    /// Copies page `page` of a stream's rows from the row index, where its last row just went.
    func writeRowPage(_ page: Int, of stream: String, _ txn: Transaction) throws {
        guard let rowPagesDB else { return }
        let first = (page - 1) * Self.rowsPerPage + 1
        let prefix = Keys.streamPrefix(stream)
        var value = BinaryWriter(capacity: Self.rowsPerPage * 32)
        let complete = try txn.withCursor(rowsDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, first))
            var number = first
            while number < first + Self.rowsPerPage, let (key, stored) = entry, Keys.key(key, startsWith: prefix),
                Keys.decodeNumber(key) == number, stored.count > 8
            {
                // The row as the index encodes it, without the version in front.
                value.write(bytes: UnsafeRawBufferPointer(rebasing: stored[8...]))
                number += 1
                entry = try cursor.next()
            }
            return number == first + Self.rowsPerPage
        }
        // An index with a gap gets no page; readers fall back to the index, which reports the gap.
        guard complete else { return }
        value.writeChecksum()
        try txn.put(rowPagesDB, key: Keys.streamVersion(stream, page), value: value.bytes)
    }

    /// How many rows a stream has kept: the row index's, then the pending ones.
    func keptRowCount(of stream: String, _ pending: PendingIndex, _ txn: Transaction) throws -> Int {
        try pending.keptRowCount(of: stream, indexed: try indexedRowCount(of: stream, txn))
    }

    /// How many rows the row index holds for a stream.
    func indexedRowCount(of stream: String, _ txn: Transaction) throws -> Int {
        try txn.withCursor(rowsDB) { cursor in
            let prefix = Keys.streamPrefix(stream)
            let entry = try cursor.seek(atOrAfter: prefix + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            guard let (key, _) = entry == nil ? try cursor.last() : try cursor.previous(), Keys.key(key, startsWith: prefix) else { return 0 }
            return Keys.decodeNumber(key)
        }
    }

    /// A stream's first `count` rows: whole pages first, then the rest from the row index, then
    /// the pending ones. `room`: how many more the fold after it may add (a head is followed by at
    /// most 15 events, a snapshot by hundreds), so that adding them does not copy the history.
    /// `slim`: only the latest row made, the others hashed by their ids (`KeptRows(latestOf:)`).
    func keptRows(
        of stream: String, count: Int, room: Int = 64, slim: Bool = false, _ pending: PendingIndex,
        _ txn: Transaction
    ) throws -> KeptRows? {
        guard count > 0 else { return KeptRows(reservingCapacity: 0) }
        var rows = slim ? KeptRows(latestOf: count) : KeptRows(reservingCapacity: count + room)
        try readRowPages(of: stream, upTo: count, into: &rows, txn)
        let prefix = Keys.streamPrefix(stream)
        try txn.withCursor(rowsDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, rows.count + 1))
            while rows.count < count, let (key, value) = entry, Keys.key(key, startsWith: prefix), value.count > 8,
                rows.append(encoded: UnsafeRawBufferPointer(rebasing: value[8...]))
            {
                entry = try cursor.next()
            }
        }
        if rows.count < count { try pending.appendRows(of: stream, upTo: count, into: &rows) }
        return rows.count == count ? rows : nil
    }

    /// Appends the stream's row pages from page 1 while they lie within its first `count` rows,
    /// stopping at the first page that is missing (a log older than row pages) or damaged.
    func readRowPages(of stream: String, upTo count: Int, into rows: inout KeptRows, _ txn: Transaction) throws {
        guard let rowPagesDB, count >= Self.rowsPerPage else { return }
        let prefix = Keys.streamPrefix(stream)
        try txn.withCursor(rowPagesDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, 1))
            var page = 1
            while page * Self.rowsPerPage <= count, let (key, value) = entry, Keys.key(key, startsWith: prefix), Keys.decodeNumber(key) == page,
                rows.append(page: value, count: Self.rowsPerPage)
            {
                page += 1
                entry = try cursor.next()
            }
        }
    }
}
