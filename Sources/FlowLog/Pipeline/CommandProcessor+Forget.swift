public import FlowLogStore

/// Forgetting through the log's one writer (`DELETE /streams/{stream}`, run by the server's
/// `GroupCommitWriter` between two commits).
///
/// The processor keeps the states of the streams it decided for. Left in its cache, a forgotten
/// stream's state would keep the person's data in memory, and would be a wrong start for the
/// stream's next life: versions are no longer monotonic once a stream can be forgotten, so another
/// writer could rebuild the stream to the very version the cached state had, and the append's
/// version check would not notice. Forgetting here drops the states with the stream.
extension CommandProcessor {
    /// The log cannot forget (`capabilities.forgetting` is nil: a wrapper that does not pass it on).
    public struct ForgettingUnsupported: Error, CustomStringConvertible {
        public let location: String
        public var description: String {
            "\(location) cannot forget a stream: open the log itself (LMDB, PostgreSQL or memory), not a wrapper of it. Nothing was changed."
        }
    }

    /// Forgets `streams` in one transaction (`StreamForgetting.forget(streams:audit:)`, whose
    /// `ForgetRefusal` it throws), each with its audit event (`ErasureAudit`, stamped by this
    /// processor's clock and ids), and drops their cached states, whatever the outcome.
    public func forget(streams: [String], reason: String = "", key: [UInt8]? = nil) throws -> [ForgottenStream] {
        defer { for stream in streams { cache.remove(stream) } }
        guard let forgetting = log.capabilities.forgetting else { throw ForgettingUnsupported(location: log.location) }
        return try forgetting.forget(streams: streams) { forgotten in
            ErasureAudit.event(for: forgotten, reason: reason, key: key, eventId: ids.next(), timestamp: clock.now())
        }
    }
}
