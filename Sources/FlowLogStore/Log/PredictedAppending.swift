/// A log that can append a batch on the condition that it does exactly what its caller predicted,
/// and write nothing otherwise: what `BackgroundAppender` needs to answer before the write. The
/// appender reads its `lastPosition()` holding its own lock, so that read must never wait for the
/// appender (a wrapper whose reads settle the appender's writes passes the log it wraps).
///
/// An embedded log's append rules run inside its write transaction, so its answers (positions,
/// conflicts) are known only there. But a `CommandProcessor` already knows what they will be when
/// nobody else writes: it checked the command ids, and it asks for the versions it decided against.
public protocol PredictedAppending: EventLog {
    /// `append(requests)` in one durable transaction, committed only if the log's last position
    /// before it is `head` and the answers are `results`; otherwise nothing is written and
    /// `AppendDiverged` is thrown. Also `AppendDiverged` when the write would need a larger map:
    /// growing it is left to a synchronous append, with no other transaction of the process open.
    func append(_ requests: [AppendRequest], asPredicted results: [AppendResult], after head: Int) throws
}

/// A predicted append found the log elsewhere than predicted (another process wrote, a command
/// id was stored meanwhile, a cached state was behind) or was built on one that did: nothing of it
/// was written, and its commands are to be decided again (`GroupCommitWriter` does).
public struct AppendDiverged: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "the log was not where the append predicted it; nothing was written" }
}
