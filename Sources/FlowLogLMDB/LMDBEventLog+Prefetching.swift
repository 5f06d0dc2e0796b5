import FlowLog
import LMDB

/// `send`'s reading thread loads the states of the streams it meets first while the writer's
/// thread decides and commits (`StatePrefetching`). The reads share one read transaction, and so
/// one load of the pending batch records, and hold the map in place while they run
/// (`Environment.readBesideWriter`): the writer's thread may grow it meanwhile.
extension LMDBEventLog: StatePrefetching {
    public func committedStates(ofStreams streams: [String], slimmingPast: Int?) throws -> [(state: StreamState, version: Int)] {
        do {
            return try environment.readBesideWriter { txn in
                let pending = try PendingIndex.load(self, txn)
                return try streams.map { try state(ofStream: $0, throughPosition: nil, pending: pending, slimmingPast: slimmingPast, txn) }
            }
        } catch let error as LMDBError {
            throw FlowLogError.reading(error, path: path)
        }
    }
}
