import FlowLog
import LMDB

/// The append `BackgroundAppender` runs on its own thread while `send` decides the next batch: the
/// same transaction as `append`, committed only if the log is where the caller predicted.
///
/// The write's own encoder and salts are the log's (`append`'s); the appender runs one write at a
/// time and waits for them all before a synchronous `append`, so they are never used at once.
extension LMDBEventLog: PredictedAppending {
    public func append(_ requests: [AppendRequest], asPredicted results: [AppendResult], after head: Int) throws {
        do {
            try environment.write(retryingWhenMapIsFull: false, growingMap: false) { txn in
                // Aborted, writing nothing, when another writer moved the log or a stream meanwhile.
                guard try self.head(txn).position == head, try append(requests, txn) == results else { throw AppendDiverged() }
            }
        } catch let error as LMDBError where error.isMapFull {
            // Grown by the synchronous append that decides these commands again.
            throw AppendDiverged()
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }
}
