public import Deciding

/// The cart's events: facts in the past tense that carry everything their reducer needs (prices,
/// totals, resolved quantities), so replaying them never consults anything but the event.
public enum CartEvent: EventFamily {
    case productAdded(ProductAdded)
    /// `quantity` is what was taken off the line; a line that reaches 0 goes, with its discount.
    case productRemoved(ProductRemoved)
    /// `quantity` is the line's new quantity.
    case quantityChanged(QuantityChanged)
    case discountApplied(DiscountApplied)
    case discountRemoved(DiscountRemoved)
    /// The cart's total and item count as they were when the checkout began.
    case checkoutStarted(CheckoutStarted)
    /// The payment provider said yes: the order as it was at checkout. The cart starts afresh.
    case orderPlaced(OrderPlaced)
    case paymentFailed(PaymentFailed)

    /// Version 2: the product's currency, resolved (the command's, else the log's default). Version
    /// 1 (`V1`) was written by builds whose every cart was in USD, and upcasts to USD; a product in
    /// USD is still stored as version 1.
    public struct ProductAdded: UpcastingPayload {
        public static let declaration = EventDeclaration(
            "cart.productAdded", tag: 1, version: 2, logSchema: 2,
            change: "adds currency, the product's ISO 4217 code; version 1 is USD",
            "A quantity of a product went into the cart.")
        public var productId = ""
        /// Resolved: the product id where the command had no name.
        public var name = ""
        public var unitPrice = 0
        public var quantity = 0
        /// Resolved: the command's currency, else the log's default.
        public var currency = Money.currencyOfEarlierCarts

        @inlinable public init() {}
        @inlinable
        public init(productId: String, name: String, unitPrice: Int, quantity: Int, currency: String = Money.currencyOfEarlierCarts) {
            (self.productId, self.name, self.unitPrice, self.quantity, self.currency) = (productId, name, unitPrice, quantity, currency)
        }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("productId", .identifier, column: .productId, "The product id."), &productId)
            try v.visit(Field("name", .text, column: .name, "The product's name."), &name)
            try v.visit(Field("unitPrice", .cents, column: .unitPrice, "The unit price."), &unitPrice)
            try v.visit(Field("quantity", .quantity, column: .quantity, "How many were added."), &quantity)
            try v.visit(Field("currency", .currency, column: .currency, "The currency of the unit price."), &currency)
        }

        @inlinable
        public static func upcast(_ earlier: V1) -> ProductAdded {
            ProductAdded(productId: earlier.productId, name: earlier.name, unitPrice: earlier.unitPrice, quantity: earlier.quantity)
        }

        @inlinable
        public func downcast() -> V1? {
            currency == Money.currencyOfEarlierCarts ? V1(productId: productId, name: name, unitPrice: unitPrice, quantity: quantity) : nil
        }

        /// Version 1, as logs before currencies hold it.
        public struct V1: EventPayload {
            public static let declaration = EventDeclaration("cart.productAdded", tag: 1, "A quantity of a product went into the cart.")
            public var productId = ""
            public var name = ""
            public var unitPrice = 0
            public var quantity = 0

            @inlinable public init() {}
            @inlinable
            public init(productId: String, name: String, unitPrice: Int, quantity: Int) {
                (self.productId, self.name, self.unitPrice, self.quantity) = (productId, name, unitPrice, quantity)
            }

            @inlinable
            public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
                try v.visit(Field("productId", .identifier, column: .productId, "The product id."), &productId)
                try v.visit(Field("name", .text, column: .name, "The product's name."), &name)
                try v.visit(Field("unitPrice", .cents, column: .unitPrice, "The unit price."), &unitPrice)
                try v.visit(Field("quantity", .quantity, column: .quantity, "How many were added."), &quantity)
            }
        }
    }

    public struct ProductRemoved: EventPayload {
        public static let declaration = EventDeclaration("cart.productRemoved", tag: 2, "A quantity of a product left the cart.")
        public var productId = ""
        public var quantity = 0

        @inlinable public init() {}
        public init(productId: String, quantity: Int) { (self.productId, self.quantity) = (productId, quantity) }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("productId", .identifier, column: .productId, "The product id."), &productId)
            try v.visit(
                Field("quantity", .quantity, column: .quantity, "How many were removed (the whole line's when the command named none)."), &quantity)
        }
    }

    public struct QuantityChanged: EventPayload {
        public static let declaration = EventDeclaration("cart.quantityChanged", tag: 8, "A product's line in the cart was set to a new quantity.")
        public var productId = ""
        public var quantity = 0

        @inlinable public init() {}
        public init(productId: String, quantity: Int) { (self.productId, self.quantity) = (productId, quantity) }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("productId", .identifier, column: .productId, "The product id."), &productId)
            try v.visit(Field("quantity", .quantity, column: .quantity, "The line's new quantity."), &quantity)
        }
    }

    /// Version 2: a discount is a whole percent or a fixed amount off; exactly one of the two is
    /// not 0. Version 1 (`V1`) knew percents only and upcasts with `amountOff` 0.
    public struct DiscountApplied: UpcastingPayload {
        public static let declaration = EventDeclaration(
            "cart.discountApplied", tag: 3, version: 2, logSchema: 2,
            change: "adds amountOff, cents off instead of a percent, whose percent is then 0",
            "A discount was applied to a product or to the whole cart.")
        public var discountId = ""
        /// 0 for a fixed amount.
        public var percent = 0
        /// Cents off, in the cart's currency; 0 for a percent.
        public var amountOff = 0
        /// `nil` for a discount on the whole cart.
        public var productId: String?

        @inlinable public init() {}
        @inlinable
        public init(discountId: String, percent: Int, amountOff: Int = 0, productId: String?) {
            (self.discountId, self.percent, self.amountOff, self.productId) = (discountId, percent, amountOff, productId)
        }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("discountId", .identifier, column: .discountId, "The discount id."), &discountId)
            try v.visit(Field("percent", .percent, column: .percent, "The discount in whole percent; 0 for a fixed amount."), &percent)
            try v.visit(Field("amountOff", .amount, column: .amountOff, "The amount off in cents; 0 for a percent."), &amountOff)
            try v.visit(Field("productId", .identifier, column: .productId, "The product it applies to; null for the whole cart."), &productId)
        }

        @inlinable
        public static func upcast(_ earlier: V1) -> DiscountApplied {
            DiscountApplied(discountId: earlier.discountId, percent: earlier.percent, productId: earlier.productId)
        }

        @inlinable
        public func downcast() -> V1? {
            amountOff == 0 ? V1(discountId: discountId, percent: percent, productId: productId) : nil
        }

        /// Version 1, as logs before fixed amounts hold it.
        public struct V1: EventPayload {
            public static let declaration = EventDeclaration(
                "cart.discountApplied", tag: 3, "A percent discount was applied to a product or to the whole cart.")
            public var discountId = ""
            public var percent = 0
            public var productId: String?

            @inlinable public init() {}
            @inlinable
            public init(discountId: String, percent: Int, productId: String?) {
                (self.discountId, self.percent, self.productId) = (discountId, percent, productId)
            }

            @inlinable
            public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
                try v.visit(Field("discountId", .identifier, column: .discountId, "The discount id."), &discountId)
                try v.visit(Field("percent", .percent, column: .percent, "The discount in whole percent."), &percent)
                try v.visit(Field("productId", .identifier, column: .productId, "The product it applies to; null for the whole cart."), &productId)
            }
        }
    }

    public struct DiscountRemoved: EventPayload {
        public static let declaration = EventDeclaration("cart.discountRemoved", tag: 4, "An applied discount was removed.")
        public var discountId = ""

        @inlinable public init() {}
        public init(discountId: String) { self.discountId = discountId }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("discountId", .identifier, column: .discountId, "The discount id."), &discountId)
        }
    }

    public struct CheckoutStarted: EventPayload {
        public static let declaration = EventDeclaration("cart.checkoutStarted", tag: 5, "The cart began checking out.")
        public var total = 0
        public var itemCount = 0

        @inlinable public init() {}
        public init(total: Int, itemCount: Int) { (self.total, self.itemCount) = (total, itemCount) }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("total", .cents, column: .total, "The cart's total at checkout."), &total)
            try v.visit(Field("itemCount", .integer, column: .itemCount, "The sum of the quantities at checkout."), &itemCount)
        }
    }

    public struct OrderPlaced: EventPayload {
        public static let declaration = EventDeclaration("cart.orderPlaced", tag: 6, "The payment succeeded and the order was placed.")
        public var orderId = ""
        public var total = 0
        public var itemCount = 0

        @inlinable public init() {}
        public init(orderId: String, total: Int, itemCount: Int) { (self.orderId, self.total, self.itemCount) = (orderId, total, itemCount) }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("orderId", .identifier, column: .orderId, "The order id."), &orderId)
            try v.visit(Field("total", .cents, column: .total, "The total, as at checkout."), &total)
            try v.visit(Field("itemCount", .integer, column: .itemCount, "The sum of the quantities, as at checkout."), &itemCount)
        }
    }

    public struct PaymentFailed: EventPayload {
        public static let declaration = EventDeclaration("cart.paymentFailed", tag: 7, "The payment failed; the cart is open again.")
        public var reason = ""

        @inlinable public init() {}
        public init(reason: String) { self.reason = reason }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("reason", .text, column: .reason, "The provider's reason."), &reason)
        }
    }

    public enum Kind: CaseIterable, Hashable, Sendable {
        case productAdded, productRemoved, quantityChanged, discountApplied, discountRemoved, checkoutStarted, orderPlaced, paymentFailed
    }

    @inlinable
    public func visitPayload<V: EventPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .productAdded(let payload): try v.visit(payload)
        case .productRemoved(let payload): try v.visit(payload)
        case .quantityChanged(let payload): try v.visit(payload)
        case .discountApplied(let payload): try v.visit(payload)
        case .discountRemoved(let payload): try v.visit(payload)
        case .checkoutStarted(let payload): try v.visit(payload)
        case .orderPlaced(let payload): try v.visit(payload)
        case .paymentFailed(let payload): try v.visit(payload)
        }
    }

    @inlinable
    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> CartEvent {
        switch kind {
        case .productAdded: .productAdded(try d.event(ProductAdded.self))
        case .productRemoved: .productRemoved(try d.event(ProductRemoved.self))
        case .quantityChanged: .quantityChanged(try d.event(QuantityChanged.self))
        case .discountApplied: .discountApplied(try d.event(DiscountApplied.self))
        case .discountRemoved: .discountRemoved(try d.event(DiscountRemoved.self))
        case .checkoutStarted: .checkoutStarted(try d.event(CheckoutStarted.self))
        case .orderPlaced: .orderPlaced(try d.event(OrderPlaced.self))
        case .paymentFailed: .paymentFailed(try d.event(PaymentFailed.self))
        }
    }
}

/// The CSV columns the cart's events introduce, in the schema's order.
extension EventColumn {
    public static let productId = EventColumn(
        "product_id", "VARCHAR", order: 10, "productAdded, productRemoved, quantityChanged, discountApplied (product discounts)")
    public static let name = EventColumn("name", "VARCHAR", order: 11, "productAdded: the product's name")
    public static let unitPrice = EventColumn("unit_price", "BIGINT", order: 12, "productAdded: unit price in cents")
    public static let quantity = EventColumn(
        "quantity", "INTEGER", order: 13, "productAdded: quantity added; productRemoved: quantity removed; quantityChanged: the new quantity")
    public static let discountId = EventColumn("discount_id", "VARCHAR", order: 14, "discountApplied, discountRemoved")
    public static let percent = EventColumn("percent", "INTEGER", order: 15, "discountApplied: whole percent")
    public static let orderId = EventColumn("order_id", "VARCHAR", order: 16, "orderPlaced")
    public static let total = EventColumn("total", "BIGINT", order: 17, "checkoutStarted, orderPlaced: cart total in cents")
    public static let itemCount = EventColumn("item_count", "INTEGER", order: 18, "checkoutStarted, orderPlaced: the sum of quantities")
    public static let reason = EventColumn("reason", "VARCHAR", order: 19, "paymentFailed: the provider's reason")
    public static let amountOff = EventColumn("amount_off", "BIGINT", order: 22, "discountApplied: cents off (0 for a percent discount)")
    public static let currency = EventColumn("currency", "VARCHAR", order: 23, "productAdded: the ISO 4217 currency of the unit price")
}
