import FlowLogBasics
public import FlowLogStore
import LMDB

/// `send`'s reading thread loads the states of the streams it meets first while the writer's
/// thread decides and commits (`StatePrefetching`). The reads share one read transaction, and so
/// at most one load of the pending batch records, and hold the map in place while they run
/// (`Environment.readBesideWriter`): the writer's thread may grow it meanwhile.
extension LMDBEventLog: StatePrefetching {
    public func committedStates(ofStreams streams: [String], slimmingPast: Int?) throws -> [PrefetchedState] {
        do {
            return try environment.readBesideWriter { txn in
                // Loaded for the first stream that has events: a slice of new sessions has none,
                // and loading the pending records for each slice of them took most of the time.
                var pending: PendingIndex?
                return try txn.withCursor(streamsDB) { versions in
                    try streams.map { stream in
                        let (version, page) = try storedVersionAndPage(of: stream, &versions, txn)
                        guard version > 0 else { return PrefetchedState(state: .initial, version: 0, tablePage: page) }
                        let (state, folded) = try stateWithEvents(
                            ofStream: stream, throughPosition: nil, pending: &pending, slimmingPast: slimmingPast, txn)
                        return PrefetchedState(state: state, version: folded, tablePage: page)
                    }
                }
            }
        } catch let error as LMDBError {
            throw FlowLogError.reading(error, path: path)
        }
    }

    /// The stream's stored version (0 for one without events) and the page of the stream table
    /// that holds its entry, or that its first entry goes to (the leaf of the key that follows it,
    /// `Int.max` past the last key), known by its first key's hash. One descent answers both.
    private func storedVersionAndPage(of stream: String, _ cursor: inout Cursor, _ txn: Transaction) throws -> (version: Int, page: Int?) {
        var name = stream
        return try name.withUTF8 { utf8 in
            let key = UnsafeRawBufferPointer(utf8)
            guard let (found, value) = try cursor.seek(atOrAfter: key) else { return (0, Int.max) }
            let page = txn.firstKey(ofLeafHolding: found).map { first in
                var hasher = Hasher()
                hasher.combine(bytes: first)
                // 31 bits, which the look-ahead keeps for each stream it met (`Int.max` stands for
                // the page past the last key).
                return hasher.finalize() & 0x7FFF_FFFF
            }
            return found.elementsEqual(key) ? (Keys.decodeInt(value), page) : (0, page)
        }
    }
}
