import FlowLogBasics
public import FlowLogStore
import LMDB

/// `send`'s reading thread loads the states of the streams it meets first while the writer's
/// thread decides and commits (`StatePrefetching`). The reads share one read transaction, and so
/// at most one load of the pending batch records, and hold the map in place while they run
/// (`Environment.readBesideWriter`): the writer's thread may grow it meanwhile.
extension LMDBEventLog: StatePrefetching {
    public func committedStates(ofStreams streams: [String], slimmingPast: Int?) throws -> [(state: StreamState, version: Int)] {
        do {
            return try environment.readBesideWriter { txn in
                // Loaded for the first stream that has events: a slice of new sessions has none,
                // and loading the pending records for each slice of them took most of the time.
                var pending: PendingIndex?
                return try streams.map { try state(ofStream: $0, throughPosition: nil, pending: &pending, slimmingPast: slimmingPast, txn) }
            }
        } catch let error as LMDBError {
            throw FlowLogError.reading(error, path: path)
        }
    }
}
