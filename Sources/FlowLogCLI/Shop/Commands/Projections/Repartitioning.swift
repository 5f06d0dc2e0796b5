import FlowLogBasics
import FlowLogProjections
import FlowLogStore
import FlowLogSystem

/// A tracker moved from one number of parts to another (`projections repartition`, and the first
/// `projections run --partitions N`), without a gap or a repeat.
///
/// The old parts stand at different checkpoints. The move marks the tracker as being
/// repartitioned (runners let go of its parts and take none meanwhile), holds every old part's
/// lease, catches each part up to the furthest of their checkpoints, and starts every new part
/// there: each event before it was delivered by an old part, each after it is a new part's. Only
/// then does the log's count change, and the mark go; a move that fails or is interrupted takes the
/// mark back and changes nothing, and can be run again.
enum Repartitioning {
    /// Moves `tracker` to `count` parts; returns the position the new parts start after, or `nil`
    /// when it had that many already. `make` builds the old parts' projectors (for their last
    /// catch-up). `waiting`, when given, is told the first time an old part is busy and asked each
    /// half second whether to go on waiting (false: give up, as when interrupted, and return
    /// `nil`); without it a busy part is `FlowLogError.busy`.
    static func move(
        _ tracker: String, to count: Int, in log: any LogStore, make: ([String]) throws -> [any Projector],
        waiting: ((ProjectorBusy) -> Bool)? = nil
    ) throws -> Int? {
        let old = try ProjectorPartitioning.count(of: tracker, in: log)
        guard old != count else { return nil }
        let oldNames = ProjectorPartitioning.names(of: tracker, count: old)
        if waiting != nil { try ProjectorPartitioning.setPendingCount(count, of: tracker, in: log) }
        var done = false
        defer { if !done { try? ProjectorPartitioning.setPendingCount(nil, of: tracker, in: log) } }
        var leases: [any ProjectorLease] = []
        for name in oldNames {
            while true {
                do {
                    leases.append(try log.leaseProjector(name))
                    break
                } catch FlowLogError.busy(let busy) {
                    guard let waiting else { throw FlowLogError.busy(busy) }
                    guard waiting(busy) else { return nil }
                    usleep(500_000)
                }
            }
        }
        return try withExtendedLifetime(leases) {
            let end = try oldNames.map { try log.checkpoint(of: $0) }.max() ?? 0
            let runner = ProjectionRunner(log: log)
            for projector in try make(oldNames) { try runner.catchUp(projector, through: end) }
            let acknowledged = try oldNames.map { try log.acknowledgedPosition(of: $0) }.max() ?? 0
            for name in ProjectorPartitioning.names(of: tracker, count: count) {
                try ProjectorPartitioning.seed(name, checkpoint: end, acknowledged: max(end, acknowledged), in: log)
            }
            try ProjectorPartitioning.setCount(count, of: tracker, in: log)
            try ProjectorPartitioning.setPendingCount(nil, of: tracker, in: log)
            done = true
            return end
        }
    }
}
