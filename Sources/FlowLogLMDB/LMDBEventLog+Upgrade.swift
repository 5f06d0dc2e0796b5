import FlowLogBasics
import FlowLogStore
import LMDB

/// Raising a log to log schema 3 rewrites its records into the salted layout (`RecordLayout`),
/// inside the transaction that raises the schema: readers see the old log until it commits, and a
/// killed upgrade leaves the old log as it was. Positions, versions, event ids, timestamps and
/// the stored fingerprints stay; only the records' bytes and chain hashes change.
extension LMDBEventLog {
    /// How many records are decoded before their new bytes are written: writing while a cursor
    /// walks the same database would move it.
    private static let rewriteChunk = 4096

    func rewriteRecords(into layout: RecordLayout, _ txn: Transaction) throws {
        let last = try head(txn).position
        var oldHash = RecordCodec.genesisHash
        var newHash = RecordCodec.genesisHash
        var position = 1
        var chunk: [(position: Int, bytes: [UInt8])] = []
        chunk.reserveCapacity(Self.rewriteChunk)
        while position <= last {
            chunk.removeAll(keepingCapacity: true)
            try txn.withCursor(eventsDB) { cursor in
                var event = RecordedEvent.placeholder
                var entry = try cursor.seek(atOrAfter: Keys.position(position))
                while let (key, value) = entry, chunk.count < Self.rewriteChunk {
                    guard Keys.decodePosition(key) == position else {
                        throw FlowLogError.damaged(
                            RecordDamage(
                                position: position, stream: nil, problem: "it is missing (the next stored position is \(Keys.decodePosition(key)))"))
                    }
                    oldHash = try decode(value, position: position, previousHash: oldHash, into: &event)
                    newHash = RecordCodec.encode(event, previousHash: newHash, layout: layout, salts: &salts, into: &encoder)
                    chunk.append((position, encoder.bytes))
                    position += 1
                    entry = try cursor.next()
                }
            }
            if chunk.isEmpty {
                throw FlowLogError.damaged(RecordDamage(position: position, stream: nil, problem: "it is missing"))
            }
            for (position, bytes) in chunk {
                try txn.put(eventsDB, key: Keys.position(position), value: bytes)
            }
        }
    }
}
