public import FlowDomain
public import FlowLogStore

/// What the trackers need to know about one stream beyond its events' own fields: the flow state
/// (cart lines with names, prices and discounts; the visible screen) and the checkout in progress.
/// The events carry only what their reducer needs (Checkout Started has a total, not the lines), while
/// the vendors' specs want the lines, names and amounts; the mapping reads them here, before the event.
/// It is a pure fold of the stream's events, so a tracker restarted at any position rebuilds it exactly.
public struct StreamAnalyticsState: Equatable, Sendable {
    public var flow = FlowState()
    /// The stream version of the `cart.checkoutStarted` of the checkout in progress.
    public var checkoutVersion: Int?

    public init() {}

    /// The state of `record`'s stream just before it, folded from the stream's earlier events.
    public static func before(_ record: RecordedEvent, in log: any EventLog) throws -> StreamAnalyticsState {
        var state = StreamAnalyticsState()
        try log.forEachEvent(inStream: record.stream, throughPosition: record.position - 1) { earlier in
            state.apply(earlier)
            return true
        }
        return state
    }

    public mutating func apply(_ record: RecordedEvent) {
        switch record.event {
        case .cart(.checkoutStarted): checkoutVersion = record.version
        case .cart(.orderPlaced), .cart(.paymentFailed): checkoutVersion = nil
        default: break
        }
        FlowDecider.evolve(&flow, record.event)
    }
}

/// Choices that are the deployment's rather than the event's.
public struct AnalyticsSettings: Equatable, Sendable {
    /// ISO 4217 code sent with every amount (`--currency`): FlowLog keeps cents, not currencies.
    public var currency: String

    public init(currency: String = "USD") {
        self.currency = currency
    }

    /// The `currency` property of `tracked`'s amounts: its cart's currency (before the event, or
    /// after it for the product that set it); `--currency` for a cart in USD, the currency every
    /// cart had before carts named one, so that a deployment that reported its carts in another
    /// currency with `--currency` goes on doing so.
    func currencyProperty(of tracked: TrackedEvent) -> AnalyticsProperty {
        currencyProperty(for: tracked.cart.currency ?? tracked.after.cart.currency)
    }

    /// The `currency` property of amounts in `code`: the code itself, but `--currency` for USD or none.
    func currencyProperty(for code: String?) -> AnalyticsProperty {
        AnalyticsProperty("currency", .string(code.flatMap { $0 == Money.currencyOfEarlierCarts ? nil : $0 } ?? currency))
    }

    /// Why `code` cannot be a currency, or `nil` when it can: three capital letters, as both vendors want.
    public static func problem(withCurrency code: String) -> String? {
        FieldChecks.isCurrencyCode(code) ? nil : "is not an ISO 4217 currency code (three capital letters, such as USD or EUR)"
    }
}

/// One event with its stream's state just before it: everything a mapping may read. Mappings are
/// pure functions of this and the settings.
public struct TrackedEvent: Sendable {
    public let record: RecordedEvent
    public let before: StreamAnalyticsState

    public init(record: RecordedEvent, before: StreamAnalyticsState) { (self.record, self.before) = (record, before) }

    public var cart: Cart { before.flow.cart }

    /// The stream's state once the event is applied (what a screen call shows).
    public var after: FlowState { FlowDecider.evolve(before.flow, record.event) }

    /// The cart's id: the stream and how many carts it has paid for before (a paid cart starts afresh).
    public var cartId: String { "\(record.stream)-cart-\(before.flow.orders.orders.count + 1)" }

    /// The checkout in progress (or beginning now): the stream and the version of its Checkout Started.
    public var checkoutId: String? {
        if case .cart(.checkoutStarted) = record.event { return "\(record.stream)-checkout-\(record.version)" }
        return before.checkoutVersion.map { "\(record.stream)-checkout-\($0)" }
    }
}

extension Cart {
    /// Every discount of the cart in cents: the lines' product discounts and the cart discount.
    public var discountAmount: Int { Money.difference(lines.reduce(0) { Money.sum($0, $1.regularAmount) }, total) }

    /// What removing `discountId` would give back, in cents; 0 when it is not applied.
    public func amount(ofDiscount discountId: String) -> Int {
        guard isApplied(discountId: discountId) else { return 0 }
        var without = self
        if without.cartDiscount?.id == discountId { without.cartDiscount = nil }
        for index in without.lines.indices where without.lines[index].discount?.id == discountId { without.lines[index].discount = nil }
        return Money.difference(without.total, total)
    }
}
