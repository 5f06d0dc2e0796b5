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

/// Another process runs this projector now.
public struct ProjectorBusy: Equatable, Sendable, CustomStringConvertible {
    public let projector: String
    /// The holder, when its pid could be read (a holder that has only just locked may not have written it yet).
    public let pid: Int32?

    public init(projector: String, pid: Int32?) { (self.projector, self.pid) = (projector, pid) }

    public var description: String {
        "projector \(projector) is being run by \(pid.map { "process \($0)" } ?? "another process"); it delivers the new events itself. Wait for it to finish, or stop it, then run this again."
    }
}

/// A collector that kept failing until the delivery deadline: `FlowLogError.delivery`.
public struct DeliveryFailure: Equatable, Sendable, CustomStringConvertible {
    /// The collector's URL without its query (credentials).
    public let url: String
    public let attempts: Int
    public let lastProblem: String

    package init(url: String, attempts: Int, lastProblem: String) {
        (self.url, self.attempts, self.lastProblem) = (url, attempts, lastProblem)
    }

    public var description: String {
        "the collector at \(url) failed \(attempts) attempt\(attempts == 1 ? "" : "s") in a row until the delivery deadline (last: \(lastProblem)); the tracker stopped before these messages and will resume there"
    }
}
