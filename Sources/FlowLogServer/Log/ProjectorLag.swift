#if Network
    import FlowLogStore

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

        static func read(_ projectors: [String], from log: any LogStore) throws -> [ProjectorLag] {
            let statuses = try log.projectionStatus(of: projectors)
            let head = try log.lastPosition()
            let newest = head > 0 ? try log.events(from: head, limit: 1).first?.timestamp : nil
            return try statuses.map { status in
                var seconds = 0.0
                if status.lag > 0, let newest, let oldest = try log.events(from: status.checkpoint + 1, limit: 1).first?.timestamp {
                    seconds = Double(max(0, newest.microseconds - oldest.microseconds)) / 1_000_000
                }
                return ProjectorLag(projector: status.name, checkpoint: status.checkpoint, events: max(0, status.lag), seconds: seconds)
            }
        }
    }
#endif
