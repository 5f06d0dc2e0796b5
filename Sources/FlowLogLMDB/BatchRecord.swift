import FlowLogBasics
import FlowLogStore
import Foundation

/// One commit's stream-index entries and kept rows, as one value of the `batches` database (log
/// schema 4), in place of the scattered puts into `streamIndex` and `orders`/`orderPages` that
/// made each commit into a grown log rewrite the tail pages of every stream it touched.
///
/// Layout (little-endian), one value per commit, keyed by the commit's first position:
/// - `u8` format (1), `u32` stream count, `u32` event count;
/// - an offset table: per stream, in stream id byte order, the `u32` offset of its entry from the
///   start of the value (so a reader finds a stream by binary search, without decoding the rest);
/// - per stream: `u8` id length and the id's bytes, `u64` first version, `u32` event count and
///   that many `u64` positions (versions first version, first version + 1, …), `u64` number of
///   its first kept row (0 when none), `u32` row count, then per row `u64` version, `u32` length
///   and the row as `KeptRow.encode` wrote it (what `keepRow` would have put after the version);
/// - an `XXHash64` checksum of all of that (`BinaryWriter.writeChecksum`).
struct BatchRecord {
    static let format: UInt8 = 1
    static let headerSize = 9

    /// One stream's part of a commit, gathered while the commit runs.
    struct StreamPart {
        var id: [UInt8]
        var firstVersion = 0
        var positions: [UInt64] = []
        var firstRow = 0
        var rowCount = 0
        /// Each row as `u64` version, `u32` length, bytes.
        var rows: [UInt8] = []
    }

    /// The batch's streams by `streamOrdinal` (the order `AppendRules` first met them).
    private(set) var parts: [StreamPart] = []
    private(set) var eventCount = 0

    var isEmpty: Bool { eventCount == 0 }

    mutating func addEvent(stream: String, version: Int, position: Int, ordinal: Int) {
        while ordinal >= parts.count { parts.append(StreamPart(id: [])) }
        if parts[ordinal].positions.isEmpty {
            parts[ordinal].id = Array(stream.utf8)
            parts[ordinal].firstVersion = version
        }
        parts[ordinal].positions.append(UInt64(position))
        eventCount += 1
    }

    /// Keeps row `number` of the stream numbered `ordinal`, kept by its event `version` (stored
    /// just before, so the stream is known by its number, without a table of names).
    mutating func addRow(_ row: KeptRow, number: Int, ordinal: Int, version: Int) {
        precondition(ordinal < parts.count && !parts[ordinal].positions.isEmpty, "a row is kept by an event of its batch")
        if parts[ordinal].rowCount == 0 { parts[ordinal].firstRow = number }
        var encoded = BinaryWriter(capacity: 64)
        row.encode(into: &encoded)
        withUnsafeBytes(of: UInt64(version).littleEndian) { parts[ordinal].rows.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(encoded.count).littleEndian) { parts[ordinal].rows.append(contentsOf: $0) }
        encoded.withUnsafeBytes { parts[ordinal].rows.append(contentsOf: $0) }
        parts[ordinal].rowCount += 1
    }

    /// The value to store.
    func encoded() -> [UInt8] {
        let order = parts.indices.filter { !parts[$0].positions.isEmpty }.sorted { parts[$0].id.lexicographicallyPrecedes(parts[$1].id) }
        var body = BinaryWriter(capacity: eventCount * 8 + order.count * 48)
        var offsets: [Int] = []
        offsets.reserveCapacity(order.count)
        for ordinal in order {
            let part = parts[ordinal]
            offsets.append(body.count)
            body.write(UInt8(part.id.count))
            part.id.withUnsafeBytes { body.write(bytes: $0) }
            body.write(UInt64(part.firstVersion))
            body.write(UInt32(part.positions.count))
            for position in part.positions { body.write(position) }
            body.write(UInt64(part.firstRow))
            body.write(UInt32(part.rowCount))
            part.rows.withUnsafeBytes { body.write(bytes: $0) }
        }
        let front = Self.headerSize + 4 * order.count
        var value = BinaryWriter(capacity: front + body.count + 8)
        value.write(Self.format)
        value.write(UInt32(order.count))
        value.write(UInt32(eventCount))
        for offset in offsets { value.write(UInt32(front + offset)) }
        body.withUnsafeBytes { value.write(bytes: $0) }
        value.writeChecksum()
        return value.bytes
    }
}

/// A stored batch record read in place (bytes of the map, valid while the transaction that read
/// them is). Every read is bounds-checked: a damaged value yields `nil`, never a read outside it.
struct BatchRecordView {
    /// The record's key: the commit's first position.
    let key: Int
    let bytes: UnsafeRawBufferPointer
    let streamCount: Int
    let eventCount: Int

    /// `nil` when the value is too short for its header and offset table, or of another format.
    init?(key: Int, bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= BatchRecord.headerSize + 8, bytes[0] == BatchRecord.format else { return nil }
        self.key = key
        self.bytes = bytes
        streamCount = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt32.self)))
        eventCount = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 5, as: UInt32.self)))
        guard BatchRecord.headerSize + 4 * streamCount <= bytes.count - 8 else { return nil }
    }

    /// Whether the checksum matches (reads skip it: `verify` checks it, see `PendingIndex`).
    var isChecksumValid: Bool { BinaryWriter.verifiedBody(of: bytes) != nil }

    /// The entry of the `index`-th stream in id order, or `nil` when it is damaged.
    func stream(at index: Int) -> BatchStreamEntry? {
        BatchStreamEntry(bytes, at: offset(at: index), end: bytes.count - 8)
    }

    /// Where the `index`-th stream's entry starts, from the offset table.
    private func offset(at index: Int) -> Int {
        Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: BatchRecord.headerSize + 4 * index, as: UInt32.self)))
    }

    /// The id of the `index`-th stream, or `nil` when its entry is damaged.
    func streamID(at index: Int) -> UnsafeRawBufferPointer? {
        let offset = offset(at: index)
        guard offset >= 0, offset < bytes.count - 8 else { return nil }
        let length = Int(bytes[offset])
        guard offset + 1 + length <= bytes.count - 8 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<(offset + 1 + length)])
    }

    /// The index of the first stream whose id is not below `id` (binary search of the offset table).
    func lowerBound(_ id: UnsafeRawBufferPointer) -> Int {
        var (low, high) = (0, streamCount)
        while low < high {
            let middle = (low + high) / 2
            if let found = streamID(at: middle), Self.compare(found, id) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The stream's entry in this record, if the commit touched it.
    func entry(of id: UnsafeRawBufferPointer) -> BatchStreamEntry? {
        let index = lowerBound(id)
        guard index < streamCount, let found = streamID(at: index), Self.compare(found, id) == 0 else { return nil }
        return stream(at: index)
    }

    /// Byte order of two ids (as `lexicographicallyPrecedes`, through `memcmp`: every read of a
    /// stream searches every pending record, so this is the merge's inner loop).
    @inline(__always)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }
}

/// One stream's part of a stored batch record.
struct BatchStreamEntry {
    let id: UnsafeRawBufferPointer
    let firstVersion: Int
    let positions: UnsafeRawBufferPointer
    let firstRow: Int
    let rowCount: Int
    /// The rows, each `u64` version, `u32` length, bytes.
    let rows: UnsafeRawBufferPointer

    var eventCount: Int { positions.count / 8 }
    var lastVersion: Int { firstVersion + eventCount - 1 }

    func position(at offset: Int) -> Int {
        Int(truncatingIfNeeded: UInt64(littleEndian: positions.loadUnaligned(fromByteOffset: offset * 8, as: UInt64.self)))
    }

    init?(_ bytes: UnsafeRawBufferPointer, at start: Int, end: Int) {
        var at = start
        func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, at >= 0, at + count <= end else { return nil }
            defer { at += count }
            return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + count)])
        }
        guard let length = take(1), let id = take(Int(length[0])), let first = take(8), let count = take(4) else { return nil }
        guard let positions = take(8 * Int(UInt32(littleEndian: count.loadUnaligned(as: UInt32.self)))),
            let firstRow = take(8), let rowCount = take(4)
        else { return nil }
        self.id = id
        firstVersion = Int(truncatingIfNeeded: UInt64(littleEndian: first.loadUnaligned(as: UInt64.self)))
        self.positions = positions
        self.firstRow = Int(truncatingIfNeeded: UInt64(littleEndian: firstRow.loadUnaligned(as: UInt64.self)))
        self.rowCount = Int(UInt32(littleEndian: rowCount.loadUnaligned(as: UInt32.self)))
        // The rows run to the next entry; their walk (`forEachRow`) checks each length.
        rows = UnsafeRawBufferPointer(rebasing: bytes[at..<end])
    }

    /// Each kept row with its number and version; `false` when the rows are damaged.
    func forEachRow(_ body: (_ number: Int, _ version: Int, _ row: UnsafeRawBufferPointer) throws -> Void) rethrows -> Bool {
        var at = 0
        for offset in 0..<rowCount {
            guard at + 12 <= rows.count else { return false }
            let version = Int(truncatingIfNeeded: UInt64(littleEndian: rows.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            let length = Int(UInt32(littleEndian: rows.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self)))
            guard at + 12 + length <= rows.count else { return false }
            try body(firstRow + offset, version, UnsafeRawBufferPointer(rebasing: rows[(at + 12)..<(at + 12 + length)]))
            at += 12 + length
        }
        return true
    }
}
