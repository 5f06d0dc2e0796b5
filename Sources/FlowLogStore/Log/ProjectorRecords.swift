// What the log contract says about projectors: the backends keep their checkpoints and locks, and
// `FlowLogError` names their failures, while the projectors themselves live in FlowLogProjections.

/// Where each projector stands, for `flowlog projections status`.
public struct ProjectionStatus: Sendable {
    public init(name: String, checkpoint: Int, lag: Int, failure: String?) {
        (self.name, self.checkpoint, self.lag, self.failure) = (name, checkpoint, lag, failure)
    }

    public let name: String
    public let checkpoint: Int
    public let lag: Int
    /// Why the projector stopped, if its last run failed.
    public let failure: String?
}

/// The process that holds a projector's lease, as far as the backend records it.
public struct LeaseHolder: Equatable, Sendable {
    /// Absent when the holder has only just locked and not yet written it.
    public let pid: Int32?
    public let host: String?
    /// How many times the lease has been taken with an expiry (PostgreSQL, log schema 5): the
    /// number a holder's writes carry and a newer holder's take moves on. `nil` where there is none.
    public let generation: Int?

    public init(pid: Int32?, host: String?, generation: Int?) { (self.pid, self.host, self.generation) = (pid, host, generation) }
}
