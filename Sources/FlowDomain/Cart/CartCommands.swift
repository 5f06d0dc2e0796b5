public import Deciding

/// The cart's commands (SPEC §2): each kind declared once, as a payload with its fields.
public enum CartCommand: CommandFamily {
    case addProduct(AddProduct)
    case removeProduct(RemoveProduct)
    case changeQuantity(ChangeQuantity)
    case applyDiscount(ApplyDiscount)
    case removeDiscount(RemoveDiscount)
    case checkout

    public struct AddProduct: CommandPayload {
        public static let declaration = CommandDeclaration(
            "cart.addProduct", actor: .user, cli: "cart", "add",
            "Add a quantity of a product.")
        public var productId = ""
        /// Absent means the product id is used as its name.
        public var name: String?
        public var unitPrice = 0
        public var quantity = 0
        /// Absent means the log's default currency.
        public var currency: String?

        public init() {}
        public init(productId: String, name: String?, unitPrice: Int, quantity: Int, currency: String? = nil) {
            (self.productId, self.name, self.unitPrice, self.quantity, self.currency) = (productId, name, unitPrice, quantity, currency)
        }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("productId", .identifier, role: "product id", option: "product", "The product id."), &productId)
            try v.visit(Field("name", .text, role: "product name", option: "name", "The product's name (default: its id)."), &name)
            try v.visit(Field("unitPrice", .cents, role: "unit price", option: "price", "The unit price."), &unitPrice)
            try v.visit(Field("quantity", .quantity, role: "quantity", option: "quantity", optionDefault: 1, "How many to add."), &quantity)
            try v.visit(Field("currency", .currency, role: "currency", option: "currency", "Its currency (default: the log's)."), &currency)
        }
    }

    public struct RemoveProduct: CommandPayload {
        public static let declaration = CommandDeclaration(
            "cart.removeProduct", actor: .user, cli: "cart", "remove",
            "Remove a quantity of a product, or its whole line.")
        public var productId = ""
        /// Absent means the whole line.
        public var quantity: Int?

        public init() {}
        public init(productId: String, quantity: Int?) { (self.productId, self.quantity) = (productId, quantity) }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("productId", .identifier, role: "product id", option: "product", "The product id."), &productId)
            try v.visit(
                Field("quantity", .quantity, role: "quantity", option: "quantity", "How many to remove (default: the whole line)."), &quantity)
        }
    }

    public struct ChangeQuantity: CommandPayload {
        public static let declaration = CommandDeclaration(
            "cart.changeQuantity", actor: .user, cli: "cart", "change-quantity",
            "Set the quantity of a product in the cart.")
        public var productId = ""
        public var quantity = 0

        public init() {}
        public init(productId: String, quantity: Int) { (self.productId, self.quantity) = (productId, quantity) }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("productId", .identifier, role: "product id", option: "product", "The product id."), &productId)
            try v.visit(Field("quantity", .quantity, role: "quantity", option: "quantity", "The line's new quantity, 1 through 999."), &quantity)
        }
    }

    public struct ApplyDiscount: CommandPayload {
        public static let declaration = CommandDeclaration(
            "cart.applyDiscount", actor: .user, cli: "cart", "apply-discount",
            "Apply a percent or a fixed amount off to a product or to the whole cart.")
        public var discountId = ""
        /// Either `percent` or `amountOff`, never both.
        public var percent: Int?
        public var amountOff: Int?
        /// Absent means a discount on the whole cart.
        public var productId: String?

        public init() {}
        public init(discountId: String, percent: Int?, amountOff: Int? = nil, productId: String?) {
            (self.discountId, self.percent, self.amountOff, self.productId) = (discountId, percent, amountOff, productId)
        }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("discountId", .identifier, role: "discount id", option: "discount", "The discount id."), &discountId)
            try v.visit(
                Field("percent", .percent, role: "percent", option: "percent", "The discount in whole percent (or give amountOff)."), &percent)
            try v.visit(Field("amountOff", .amount, role: "amount off", option: "amount", "A fixed amount off (or give percent)."), &amountOff)
            try v.visit(
                Field("productId", .identifier, role: "product id", option: "product", "The product it applies to (default: the whole cart)."),
                &productId)
        }

        public func violation() -> Rejection? {
            switch (percent, amountOff) {
            case (nil, nil): Rejection(.malformedCommand, "The discount names neither \"percent\" nor \"amountOff\"; give one of them.")
            case (.some, .some):
                Rejection(
                    .malformedCommand, "The discount names both \"percent\" and \"amountOff\"; give one of them (apply two discounts for both).")
            default: nil
            }
        }
    }

    public struct RemoveDiscount: CommandPayload {
        public static let declaration = CommandDeclaration(
            "cart.removeDiscount", actor: .user, cli: "cart", "remove-discount",
            "Remove an applied discount.")
        public var discountId = ""

        public init() {}
        public init(discountId: String) { self.discountId = discountId }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("discountId", .identifier, role: "discount id", option: "discount", "The discount id."), &discountId)
        }
    }

    public struct Checkout: CommandPayload {
        public static let declaration = CommandDeclaration(
            "cart.checkout", actor: .user, cli: "cart", "checkout",
            "Start checking out the cart.")
        public init() {}
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {}
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case addProduct, removeProduct, changeQuantity, applyDiscount, removeDiscount, checkout }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .addProduct(let payload): try v.visit(payload)
        case .removeProduct(let payload): try v.visit(payload)
        case .changeQuantity(let payload): try v.visit(payload)
        case .applyDiscount(let payload): try v.visit(payload)
        case .removeDiscount(let payload): try v.visit(payload)
        case .checkout: try v.visit(Checkout())
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> CartCommand {
        switch kind {
        case .addProduct: .addProduct(try d.payload(AddProduct.self))
        case .removeProduct: .removeProduct(try d.payload(RemoveProduct.self))
        case .changeQuantity: .changeQuantity(try d.payload(ChangeQuantity.self))
        case .applyDiscount: .applyDiscount(try d.payload(ApplyDiscount.self))
        case .removeDiscount: .removeDiscount(try d.payload(RemoveDiscount.self))
        case .checkout: try d.fieldless(Checkout.self, .checkout)
        }
    }
}

/// What the payment provider answered (system commands).
public enum PaymentCommand: CommandFamily {
    case succeeded(Succeeded)
    case failed(Failed)

    public struct Succeeded: CommandPayload {
        public static let declaration = CommandDeclaration(
            "payment.succeeded", actor: .system, cli: "system", "payment-succeeded",
            "The payment provider said yes.")
        public var orderId = ""

        public init() {}
        public init(orderId: String) { self.orderId = orderId }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("orderId", .identifier, role: "order id", option: "order", "The new order's id."), &orderId)
        }
    }

    public struct Failed: CommandPayload {
        public static let declaration = CommandDeclaration(
            "payment.failed", actor: .system, cli: "system", "payment-failed",
            "The payment provider said no.")
        public var reason = ""

        public init() {}
        public init(reason: String) { self.reason = reason }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("reason", .text, role: "failure reason", option: "reason", "Why, in at most 200 characters."), &reason)
        }
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case succeeded, failed }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .succeeded(let payload): try v.visit(payload)
        case .failed(let payload): try v.visit(payload)
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> PaymentCommand {
        switch kind {
        case .succeeded: .succeeded(try d.payload(Succeeded.self))
        case .failed: .failed(try d.payload(Failed.self))
        }
    }
}
