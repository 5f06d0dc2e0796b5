import FlowLogBasics
import FlowLogStore
import FlowLogSystem

/// `projections run --follow --standby`: the projectors' leases, waited for instead of refused.
///
/// A standby asks for the leases in order every `interval` seconds (with jitter) and keeps them
/// only if it gets them all: at the first one that is busy it lets go of those it took this round,
/// so two standbys never hold half the set each and wait for one another for ever, and a runner
/// started by hand is never told a standby holds what it runs nothing with. It asks once per round
/// while the holder lives (one connection a round on PostgreSQL). It takes over when the runner that
/// held them has ended however it ended (LMDB's lock and PostgreSQL's session lock are dropped with
/// their holder's process): within `interval` plus the time to open the log; and on PostgreSQL when
/// the holder stopped renewing its leases for `timeout` (paused, or cut off), whose writes their
/// generation then fences out (`PostgresProjectorLease`; docs/decisions.md, "Standby runners").
enum StandbyLeases {
    /// Every lease of `names`, waiting while another process holds one; nil if interrupted (SIGINT
    /// or SIGTERM held by `Interruption`) before they were all taken. `waiting` is told the first
    /// time a lease is busy, `tookOver` once all are held after waiting.
    static func take(
        _ names: [String], from log: any LogStore, expiringAfter timeout: Double, interval: Double = 0.5, waiting: (ProjectorBusy) -> Void,
        tookOver: () -> Void
    ) throws -> [any ProjectorLease]? {
        var waited = false
        while true {
            var held: [any ProjectorLease] = []
            var busy: ProjectorBusy?
            for name in names {
                do {
                    held.append(try log.leaseProjector(name, expiringAfter: timeout))
                } catch FlowLogError.busy(let holder) {
                    busy = holder
                    break
                }
            }
            guard let busy else {
                if waited { tookOver() }
                return held
            }
            held.removeAll()
            if !waited { waiting(busy) }
            waited = true
            if Interruption.requested { return nil }
            usleep(UInt32(interval * Double.random(in: 0.5...1.5) * 1_000_000))
            if Interruption.requested { return nil }
        }
    }
}
