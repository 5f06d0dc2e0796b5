import FlowLogBasics
public import FlowLogStore
import LMDB

/// The append `BackgroundAppender` runs on its own thread while `send` decides the next batch: the
/// same transaction as `append`, committed only if the log is where the caller predicted.
///
/// The write's own encoder and salts are the log's (`append`'s); the appender runs one write at a
/// time and waits for them all before a synchronous `append`, so they are never used at once.
extension LMDBEventLog: PredictedAppending {
    public func append(_ requests: [AppendRequest], asPredicted results: [AppendResult], after head: Int) throws {
        do {
            let foldDue = try environment.write(retryingWhenMapIsFull: false, growingMap: false) { txn in
                // Aborted, writing nothing, when another writer moved the log or a stream meanwhile.
                guard try self.head(txn).position == head else { throw AppendDiverged() }
                let (appended, foldDue) = try append(requests, txn)
                guard appended == results else { throw AppendDiverged() }
                return foldDue
            }
            // As `append`'s: the events are committed whatever the fold does.
            if foldDue { try? foldPending(growingMap: false) }
        } catch let error as LMDBError where error.isMapFull {
            // Grown by the synchronous append that decides these commands again.
            throw AppendDiverged()
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }
}
