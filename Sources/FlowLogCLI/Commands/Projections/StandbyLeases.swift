import FlowLogBasics
import FlowLogStore
import FlowLogSystem

/// `projections run --follow --standby`: the projectors' leases, waited for instead of refused.
///
/// A standby asks for each lease it does not hold yet every `interval` seconds, keeps the ones it
/// gets, and starts projecting once it holds them all: when the runner that held them has ended
/// however it ended (LMDB's lock and PostgreSQL's session lock are dropped with their holder's
/// process), so a following runner killed on one machine is replaced within `interval` plus the
/// time to open the log. A holder that is alive keeps its leases: a paused one (SIGSTOP) is not
/// replaced, since nothing would stop it writing when it resumes (docs/decisions.md, "Standby runners").
enum StandbyLeases {
    /// Every lease of `names`, waiting while another process holds some; nil if interrupted
    /// (SIGINT or SIGTERM held by `Interruption`) before they were all taken. `waiting` is told the
    /// first time a lease is busy, `tookOver` once all are held after waiting.
    static func take(
        _ names: [String], from log: any LogStore, interval: Double = 0.25, waiting: (ProjectorBusy) -> Void, tookOver: () -> Void
    ) throws -> [any ProjectorLease]? {
        var held: [String: any ProjectorLease] = [:]
        var waited = false
        while true {
            for name in names where held[name] == nil {
                do {
                    held[name] = try log.leaseProjector(name)
                } catch FlowLogError.busy(let busy) {
                    if !waited { waiting(busy) }
                    waited = true
                }
            }
            if held.count == names.count {
                if waited { tookOver() }
                return names.map { held[$0]! }
            }
            if Interruption.requested { return nil }
            usleep(UInt32(interval * 1_000_000))
        }
    }
}
