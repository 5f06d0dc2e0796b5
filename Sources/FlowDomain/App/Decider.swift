public import Deciding

/// The cart and onboarding domain in the `Decider` shape: its orders are the rows it keeps beside
/// the events, and its read-model columns are declared in ReadModelColumns.swift.
extension FlowDecider: Decider {
    public typealias Failure = Rejection

    public static func keptRow(for event: AppEvent) -> Order? {
        guard case .cart(.orderPlaced(let placed)) = event else { return nil }
        return Order(orderId: placed.orderId, total: placed.total, itemCount: placed.itemCount)
    }

    @inlinable public static func keptRows(of state: FlowState) -> [Order] { state.orders.orders }

    /// Dropped orders included (`OrderHistory.keepOnlyLatest`).
    @inlinable public static func keptRowCount(of state: FlowState) -> Int { state.orders.count }

    /// Only a successful payment looks at the orders: its order id must be new to the stream, which
    /// the dropped orders' id hashes can prove without them.
    public static func needsKeptRows(_ command: AppCommand, state: FlowState) -> Bool {
        guard case .payment(.succeeded(let payment)) = command else { return false }
        return state.orders.mayHaveDropped(orderId: payment.orderId)
    }

    public static func mayNeedKeptRows(_ command: AppCommand) -> Bool {
        if case .payment(.succeeded) = command { return true }
        return false
    }

    public static func restoreKeptRows(_ rows: [Order], into state: inout FlowState) { state.orders = OrderHistory(orders: rows) }

    /// An order's key is its id.
    public static func keptRowKeyHash(utf8 key: UnsafeRawBufferPointer) -> UInt64 { OrderHistory.idHash(utf8: key) }

    public static func restoreSlimKeptRows(latest: Order, droppedKeyHashes: [UInt64], into state: inout FlowState) {
        state.orders = OrderHistory(latest: latest, droppedCount: droppedKeyHashes.count, droppedIdHashes: droppedKeyHashes)
    }

    /// The order's id is the client's choice and may name the person; its total, item count and
    /// currency stay, so revenue still adds up.
    public static func anonymized(_ order: Order) -> Order {
        var kept = order
        kept.orderId = ""
        return kept
    }
}
