public import FlowLogBasics
public import FlowLogStore
import LMDB

/// The `eventIds` database read by id: every append writes it (never deferred), so it holds every
/// event id of the log.
extension LMDBEventLog: EventIdLookup {
    public func positions(ofEventIds ids: [EventID]) throws -> [EventID: Int] {
        try reading { txn in
            var found: [EventID: Int] = [:]
            for id in ids {
                if let position = try txn.get(eventIdsDB, key: Keys.eventID(id)).map(Keys.decodePosition) { found[id] = position }
            }
            return found
        }
    }
}
