import Deciding
public import FlowDomain
public import FlowLogStore

/// The read models, exactly once: each stream's cart and onboarding state, the orders of all streams,
/// and a `hasOnboarded` flag per stream, written in the same transaction as the checkpoint
/// (`ReadModelStore`), so after a crash at any point they equal a full replay up to the checkpoint.
public final class StorageProjector: Projector {
    public static let projectorName = "storage"
    public let name = StorageProjector.projectorName
    private let store: any ReadModelStore & CheckpointStore

    public init(store: any ReadModelStore & CheckpointStore) {
        self.store = store
    }

    public func checkpoint() throws -> Int { try store.checkpoint(of: name) }

    public func project(_ events: [RecordedEvent]) throws {
        try store.updateReadModels { transaction in
            var states: [String: StreamFold] = [:]
            // Another process may have projected some of these meanwhile: the checkpoint, read inside
            // this transaction, says which events are still to do, so none is applied twice.
            let done = try transaction.checkpoint()
            let flags = transaction.localStorage
            // The log's own streams (the erasure audit trail) are no session: no read model of theirs.
            for record in events where record.position > done && !SystemStreams.isReserved(record.stream) {
                var current =
                    try states.removeValue(forKey: record.stream) ?? transaction.state(of: record.stream).map { StreamFold($0) } ?? StreamFold.initial
                current.fold(record)
                if let row = KeptRow(keptBy: record.event, after: current.state.value) {
                    try transaction.addRow(row, stream: record.stream, position: record.position)
                }
                let onboarded = current.state.value.navigation.hasOnboarded
                if case .navigation = record.event, try flags.bool(forKey: record.stream) != onboarded {
                    try flags.set(onboarded, forKey: record.stream)
                }
                states[record.stream] = current
            }
            for (stream, current) in states {
                try transaction.setState(current.state, version: current.version, of: stream)
            }
            if let last = events.last, last.position > done { try transaction.setCheckpoint(last.position) }
        }
    }

    public func reset() throws { try store.resetReadModels() }

    /// A stream's state from the read model, when the read model is current; `nil` otherwise, and
    /// the caller replays.
    public func currentState(of stream: String) throws -> (state: FlowState, version: Int)? {
        try store.currentReadModelState(of: stream)
    }

    /// Orders of all streams in the order they were placed (or of one stream), as far as the read
    /// model got (its checkpoint).
    public func orders(stream: String? = nil) throws -> [(position: Int, stream: String, order: Order)] {
        try store.readModelOrders(stream: stream)
    }

    /// Every order up to the log's last position, without writing anything: the read model's, up to
    /// its checkpoint, then those of the events after it, read from the log. A reading command can
    /// so show current orders whether or not a runner has caught the projector up.
    public func orders(stream: String? = nil, through log: any EventLog) throws -> [(position: Int, stream: String, order: Order)] {
        let checkpoint = try checkpoint()
        // A runner may move the checkpoint meanwhile: orders past the one read here come from the log.
        var orders = try store.readModelOrders(stream: stream).filter { $0.position <= checkpoint }
        try log.forEachEvent(stream: stream, from: checkpoint + 1, to: nil) { record in
            if case .cart(.orderPlaced(let placed)) = record.event {
                orders.append((record.position, record.stream, Order(orderId: placed.orderId, total: placed.total, itemCount: placed.itemCount)))
            }
            return true
        }
        return orders
    }

    /// The `hasOnboarded` flag the read model keeps for a stream.
    public func hasOnboarded(stream: String) throws -> Bool? { try store.readModelFlag(stream: stream) }

    /// Every read model as bytes, in key order: what `projections rebuild` must reproduce exactly.
    public func dump() throws -> [UInt8] { try store.readModelDump() }
}
