public import FlowLogStore

/// Where a projector stands as a whole, and each of its parts when it is split: what
/// `projections status` shows, and what `/metrics` reports, whichever processes run the parts.
///
/// A split projector's own checkpoint row stops where it was split; the projector as a whole has
/// handled every event up to its slowest part's checkpoint, so that is its checkpoint, and the
/// furthest lag is its lag.
public struct ProjectorStanding: Sendable {
    public struct Part: Sendable {
        public let partition: ProjectorPartition
        public let status: ProjectionStatus
        public let holder: LeaseHolder?
    }

    public let status: ProjectionStatus
    /// Empty for a projector that is not split.
    public let parts: [Part]
    /// The process running an unsplit projector, if one does.
    public let holder: LeaseHolder?

    /// The standing of each of `projectors`, in order, with its parts' as the log keeps them split.
    public static func read(_ projectors: [String], in store: any CheckpointStore) throws -> [ProjectorStanding] {
        let counts = try projectors.map { try ProjectorPartitioning.count(of: $0, in: store) }
        let names = zip(projectors, counts).flatMap { ProjectorPartitioning.names(of: $0, count: $1) }
        var statuses = try store.projectionStatus(of: names)[...]
        let holders = try store.leaseHolders(of: names)
        return zip(projectors, counts).map { name, count in
            let own = statuses.prefix(count)
            statuses = statuses.dropFirst(count)
            guard count > 1 else { return ProjectorStanding(status: own.first!, parts: [], holder: holders[name]) }
            let parts = zip(ProjectorPartition.all(count), own).map { Part(partition: $0, status: $1, holder: holders[$1.name]) }
            let slowest = own.min { $0.checkpoint < $1.checkpoint }!
            let whole = ProjectionStatus(
                name: name, checkpoint: slowest.checkpoint, lag: slowest.lag, failure: own.lazy.compactMap(\.failure).first)
            return ProjectorStanding(status: whole, parts: parts, holder: nil)
        }
    }
}
