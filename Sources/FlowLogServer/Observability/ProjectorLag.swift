#if Network
    import FlowLogStore
    import FlowLogProjectors

    /// How far a projector is behind the log, as an operator alerts on it: its checkpoint, the events
    /// after it, and the time from the oldest of those to the newest event. Read from the log's own
    /// checkpoints, so it is true whichever process runs the projector (`projections run`, another
    /// machine), and whether it runs at all.
    struct ProjectorLag: Equatable, Sendable {
        let projector: String
        let checkpoint: Int
        let events: Int
        /// 0 when the projector has taken every event.
        let seconds: Double
        /// How many parts the projector is split into (1: not split; a part itself is 1).
        var partitions = 1
        /// The generation of the lease its runner holds, where the log keeps one (PostgreSQL).
        var generation: Int?

        /// Each projector as a whole (a split one: its slowest part), then each part of a split
        /// one, under the part's name.
        static func read(_ projectors: [String], from log: any LogStore) throws -> [ProjectorLag] {
            let standings = try ProjectorStanding.read(projectors, in: log)
            let head = try log.lastPosition()
            let newest = head > 0 ? try log.events(from: head, limit: 1).first?.timestamp : nil
            func lag(_ status: ProjectionStatus, partitions: Int, holder: LeaseHolder?) throws -> ProjectorLag {
                var seconds = 0.0
                if status.lag > 0, let newest, let oldest = try log.events(from: status.checkpoint + 1, limit: 1).first?.timestamp {
                    seconds = Double(max(0, newest.microseconds - oldest.microseconds)) / 1_000_000
                }
                var lag = ProjectorLag(projector: status.name, checkpoint: status.checkpoint, events: max(0, status.lag), seconds: seconds)
                lag.partitions = partitions
                lag.generation = holder?.generation
                return lag
            }
            return try standings.map { try lag($0.status, partitions: max(1, $0.parts.count), holder: $0.holder) }
                + standings.flatMap { standing in try standing.parts.map { try lag($0.status, partitions: 1, holder: $0.holder) } }
        }
    }
#endif
