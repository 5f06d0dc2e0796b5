public import Deciding

extension FlowDecider {
    /// `stream_states`: what an analyst asks of a session without decoding its state.
    public static let stateColumns: [ReadModelColumn<FlowState>] = [
        ReadModelColumn("cart_status", .text) { .text($0.cart.status.rawValue) },
        ReadModelColumn("cart_total", .bigint) { .bigint($0.cart.total) },
        ReadModelColumn("has_onboarded", .boolean) { .boolean($0.navigation.hasOnboarded) },
    ]

    /// `orders`: every order placed, for revenue. The order id is the client's choice, so personal.
    public static let keptRowColumns: [ReadModelColumn<Order>] = [
        ReadModelColumn("order_id", .text, personal: true) { .text($0.orderId) },
        ReadModelColumn("total", .bigint) { .bigint($0.total) },
        ReadModelColumn("item_count", .integer) { .integer($0.itemCount) },
    ]

    /// An order read back from its columns (in `keptRowColumns`' order).
    public static func keptRow(fromColumns values: [ReadModelColumn<Order>.Value]) -> Order? {
        guard values.count == 3, case .text(let id) = values[0], case .bigint(let total) = values[1],
            case .integer(let count) = values[2]
        else { return nil }
        return Order(orderId: id, total: total, itemCount: count)
    }
}
