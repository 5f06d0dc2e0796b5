import Deciding

/// A discount as it is applied: to one product line, or to the whole cart; a whole percent, or a
/// fixed amount of cents off (exactly one of the two is not 0).
public struct Discount: Equatable, Sendable {
    public var id: String
    /// 0 for a fixed amount.
    public var percent: Int
    /// 0 for a percent.
    public var amountOff: Int

    public init(id: String, percent: Int, amountOff: Int = 0) { (self.id, self.percent, self.amountOff) = (id, percent, amountOff) }

    /// What it takes off `amount` (SPEC §3's pricing): the rounded percent of it, or the fixed amount,
    /// never more than `amount` itself, so nothing is priced below zero.
    public func reduction(of amount: Int) -> Int {
        amountOff > 0 ? min(amountOff, amount) : Money.percentage(percent, of: amount)
    }

    /// What it takes off, as screens and `flowlog state` show it: `-10%`, or `-5.00`.
    public var label: String { amountOff > 0 ? "-\(Money.format(cents: amountOff))" : "-\(percent)%" }

    /// What no discount the rules accept can be, for the `discounts-valid` invariant; `nil` when fine.
    public var problem: String? {
        if amountOff > 0 { return percent == 0 ? nil : "discount \(id) is both \(percent)% and \(Money.format(cents: amountOff)) off" }
        return (1...100).contains(percent) ? nil : "discount \(id) is \(percent)%"
    }
}

/// One product in the cart, with its quantity and at most one product discount.
public struct CartLine: Equatable, Sendable {
    public var productId: String
    public var name: String
    public var unitPrice: Int
    public var quantity: Int
    public var discount: Discount?

    public init(productId: String, name: String, unitPrice: Int, quantity: Int, discount: Discount? = nil) {
        (self.productId, self.name, self.unitPrice, self.quantity, self.discount) = (productId, name, unitPrice, quantity, discount)
    }

    /// unitPrice × quantity.
    public var regularAmount: Int { Money.product(unitPrice, quantity) }

    /// The regular amount less the rounded product discount.
    public var discountedAmount: Int {
        let regular = regularAmount
        return Money.difference(regular, discount?.reduction(of: regular) ?? 0)
    }
}

public enum CartStatus: String, Equatable, Sendable {
    case open
    case checkingOut
}

/// The shopping cart of one stream (seed "iOS Application Architecture": Cart, ProductCartItem, Discount).
public struct Cart: Equatable, Sendable {
    public static let maximumLines = 100
    public static let maximumLineQuantity = 999

    public var status: CartStatus = .open
    /// Lines in the order in which they were first added.
    public var lines: [CartLine] = []
    public var cartDiscount: Discount?
    /// The currency of every amount in the cart, set by its first product; `nil` while it has no line.
    public var currency: String?

    public init() {}

    public var subtotal: Int { lines.reduce(0) { Money.sum($0, $1.discountedAmount) } }

    public var total: Int {
        let subtotal = subtotal
        return Money.difference(subtotal, cartDiscount?.reduction(of: subtotal) ?? 0)
    }

    /// The sum of the lines' quantities.
    public var itemCount: Int { lines.reduce(0) { Money.sum($0, $1.quantity) } }

    public func lineIndex(of productId: String) -> Int? {
        lines.firstIndex { $0.productId == productId }
    }

    /// Whether a discount with this id is applied to anything: the cart or any line.
    public func isApplied(discountId: String) -> Bool {
        cartDiscount?.id == discountId || lines.contains { $0.discount?.id == discountId }
    }
}

extension FieldChecks {
    /// The most a cart can hold: 100 lines of 999 at the largest unit price (9,990,000,000,000
    /// cents), so also the most any amount of a state the rules make can be.
    public static let largestCartTotal = Cart.maximumLines * Cart.maximumLineQuantity * unitPriceRange.upperBound
}

/// A paid order, as it was at checkout.
public struct Order: Equatable, Sendable {
    public var orderId: String
    public var total: Int
    public var itemCount: Int
    /// The currency of its cart: USD for every order placed before carts had one.
    public var currency: String

    public init(orderId: String, total: Int, itemCount: Int, currency: String = Money.currencyOfEarlierCarts) {
        (self.orderId, self.total, self.itemCount, self.currency) = (orderId, total, itemCount, currency)
    }
}

/// The orders of one stream, in the order they were placed.
///
/// The `duplicateOrder` check asks `contains(orderId:)`. A history that decides many commands (a
/// command processor's cached state) calls `indexIds()` once, so the check stays O(1) however long
/// a session runs. Others never pay for the index: a history folded only to be shown or stored
/// (`state --at` of a stream with tens of thousands of orders, an import) would spend a third of
/// its time hashing ids nobody asks about, and their `contains` scans instead.
public struct OrderHistory: Equatable, Sendable {
    public private(set) var orders: [Order] = []
    /// The ids of `orders`, once `indexIds()` was called; kept up to date by `append`.
    private var ids: Set<String>?
    /// How many orders came before `orders`' first and were dropped (`keepOnlyLatest()`); 0 for
    /// every history but an import's and a writer's cached one.
    public private(set) var droppedCount = 0
    /// The hashes of the dropped orders' ids, when every drop remembered them (`nil` otherwise).
    private var droppedIds: DroppedOrderIds? = DroppedOrderIds()

    /// How many orders the stream placed, dropped ones included.
    public var count: Int { droppedCount + orders.count }

    public init() {}

    public init(orders: [Order]) {
        self.orders = orders
    }

    /// A history holding its latest order only, as `keepOnlyLatest(rememberingIds: true)` leaves
    /// one, from what a log keeps beside its events, without making the older orders: the latest,
    /// how many came before it, and the hashes of their ids (`idHash(utf8:)`), in any order.
    public init(latest: Order, droppedCount: Int, droppedIdHashes: [UInt64]) {
        orders = [latest]
        self.droppedCount = droppedCount
        droppedIds = DroppedOrderIds(hashes: droppedIdHashes)
    }

    /// The hash by which a dropped order's id is remembered, from the id's UTF-8 bytes.
    public static func idHash(utf8: UnsafeRawBufferPointer) -> UInt64 { DroppedOrderIds.hash(utf8: utf8) }

    public func contains(orderId: String) -> Bool {
        if let ids { return ids.contains(orderId) }
        return orders.contains { $0.orderId == orderId }
    }

    /// Makes `contains` O(1) from now on, for this history and the histories it becomes.
    public mutating func indexIds() {
        guard ids == nil else { return }
        // Sized once: a long-lived stream's history holds tens of thousands of orders.
        var index = Set<String>(minimumCapacity: orders.count)
        for order in orders { index.insert(order.orderId) }
        ids = index
    }

    /// Whether an order among the dropped ones may have this id: false proves it new, so the
    /// `duplicateOrder` check needs only the orders still held. True when the drops did not
    /// remember their ids.
    public func mayHaveDropped(orderId: String) -> Bool {
        guard droppedCount > 0 else { return false }
        return droppedIds?.mayContain(orderId) ?? true
    }

    /// Drops every order but the latest, keeping their number, for a fold that needs no more than
    /// the number of orders and the last one: an import into a log that keeps orders in an index of
    /// their own, whose memory would otherwise grow with every order imported, and a writer's
    /// cache of states between batches, which remembers the dropped ids' hashes
    /// (`rememberingIds`, 8 bytes an order) so that a new order id needs no reload. Such a
    /// history's `contains` answers for the orders it still holds only.
    public mutating func keepOnlyLatest(rememberingIds: Bool = false) {
        guard orders.count > 1 else { return }
        if rememberingIds { droppedIds?.insert(orders.dropLast()) } else { droppedIds = nil }
        droppedCount += orders.count - 1
        // A new array rather than `removeFirst`, which would keep the whole history's capacity.
        orders = [orders[orders.count - 1]]
        ids = nil
    }

    mutating func append(_ order: Order) {
        orders.append(order)
        // Taken out of the optional so that inserting does not copy the set.
        if var index = ids.take() {
            index.insert(order.orderId)
            ids = index
        }
    }

    public static func == (lhs: OrderHistory, rhs: OrderHistory) -> Bool { lhs.droppedCount == rhs.droppedCount && lhs.orders == rhs.orders }
}
