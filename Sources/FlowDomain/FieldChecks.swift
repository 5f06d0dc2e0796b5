/// The field checks of SPEC §3, step 1: they look at the command alone, never at the state, and run
/// in the order the spec lists (identifiers, price, quantity, percent, tab, text).
public enum FieldChecks {
    public static let unitPriceRange = 0...100_000_000
    public static let quantityRange = 1...999
    public static let percentRange = 1...100
    public static let tabRange = 0...1

    /// The first field of `command` that breaks a rule, as a rejection; `nil` when every field is fine.
    public static func firstViolation(in command: AppCommand) -> Rejection? {
        switch command {
        case .cart(.addProduct(let productId, let name, let unitPrice, let quantity)):
            return identifier(productId, "product id") ?? price(unitPrice) ?? self.quantity(quantity) ?? text(name, "product name")
        case .cart(.removeProduct(let productId, let quantity)):
            return identifier(productId, "product id") ?? self.quantity(quantity)
        case .cart(.applyDiscount(let discountId, let percent, let productId)):
            return identifier(discountId, "discount id") ?? identifier(productId, "product id") ?? self.percent(percent)
        case .cart(.removeDiscount(let discountId)):
            return identifier(discountId, "discount id")
        case .payment(.succeeded(let orderId)):
            return identifier(orderId, "order id")
        case .payment(.failed(let reason)):
            return text(reason, "failure reason")
        case .home(.selectTab(let tab)):
            return tabRange.contains(tab) ? nil : Rejection(.invalidTab, "Tab \(tab) does not exist; the home screen has tabs 0 and 1.")
        case .cart(.checkout), .app, .welcome, .onboarding, .login, .home(.presentModal), .modal:
            return nil
        }
    }

    private static func identifier(_ id: String?, _ role: String) -> Rejection? {
        guard let id, !Identifier.isValid(id) else { return nil }
        return invalidIdentifier(id, role: role)
    }

    private static func price(_ price: Int) -> Rejection? {
        unitPriceRange.contains(price) ? nil
            : Rejection(.invalidPrice, "The unit price \(price) cents is out of range; use 0 through \(unitPriceRange.upperBound) cents (0.00 to 1,000,000.00).")
    }

    private static func quantity(_ quantity: Int?) -> Rejection? {
        guard let quantity, !quantityRange.contains(quantity) else { return nil }
        return Rejection(.invalidQuantity, "The quantity \(quantity) is out of range; use a whole number from 1 through 999.")
    }

    private static func percent(_ percent: Int) -> Rejection? {
        percentRange.contains(percent) ? nil
            : Rejection(.invalidPercent, "The discount of \(percent)% is out of range; use a whole percent from 1 through 100.")
    }

    private static func text(_ text: String?, _ role: String) -> Rejection? {
        guard let text, !FreeText.isValid(text) else { return nil }
        return Rejection(.invalidText, "The \(role) is \(text.unicodeScalars.count) characters long; shorten it to at most \(FreeText.maximumLength).")
    }

    /// The rejection for an identifier that breaks SPEC §1's rule; `role` names it for the reader.
    public static func invalidIdentifier(_ id: String, role: String) -> Rejection {
        let shown = id.count > 80 ? String(id.prefix(80)) + "…" : id
        return Rejection(.invalidIdentifier, "The \(role) \"\(shown)\" is not a valid identifier; use 1 to 64 characters of A-Z a-z 0-9 . _ : -")
    }
}
