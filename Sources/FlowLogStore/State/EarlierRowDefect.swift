import FlowDomain
import FlowLogBasics

/// What earlier FlowLogs got wrong in the rows they kept beside the events, so that a repair can
/// tell it apart from anything else: their row index took an order from the `orderPlaced` event
/// alone, in USD whatever its cart's currency. A state loaded through a head or a snapshot then
/// had its orders in USD, and the fingerprints of the events decided against it recorded the last
/// order so.
package enum EarlierRowDefect {
    /// The fingerprint an earlier FlowLog would have recorded for `state` after loading it through
    /// its row index: the state with its last order in USD. `nil` where that is the state's own
    /// fingerprint (no order, or the last one in USD), so nothing can be told apart.
    package static func misrecordedFingerprint(of state: StreamState, scratch: inout BinaryWriter) -> UInt64? {
        guard var last = state.value.orders.orders.last, last.currency != Money.currencyOfEarlierCarts else { return nil }
        last.currency = Money.currencyOfEarlierCarts
        return LogDecider.fingerprint(state.value, lastKeptRow: last, scratch: &scratch)
    }
}

/// What a repair of the rows kept beside the events found, or changed.
public struct KeptRowRepair: Equatable, Sendable {
    /// Streams whose kept rows differed from a fold of their events, and were rewritten.
    public var streams = 0
    public var rows = 0
    /// Recorded state fingerprints that matched the earlier defect and were set to the fold's.
    public var fingerprints = 0

    public init() {}

    public var isEmpty: Bool { streams == 0 && fingerprints == 0 }
}

/// Rewrites what earlier FlowLogs kept wrong beside the events (`EarlierRowDefect`): each stream's
/// kept rows from a fold of its events, and the fingerprints that recorded the defect. Events are
/// never touched. Only a backend that keeps a row index has anything to repair (LMDB).
public protocol KeptRowRepairing: AnyObject {
    /// With `dryRun`, only counts what would change.
    func repairKeptRows(dryRun: Bool) throws -> KeptRowRepair
}
