import Deciding

/// Everything one stream's events add up to: its cart, its orders and its navigation.
public struct FlowState: Equatable, Sendable {
    public var cart = Cart()
    public var orders = OrderHistory()
    public var navigation = Navigation()

    public init() {}
}
