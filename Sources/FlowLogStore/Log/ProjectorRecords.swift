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
