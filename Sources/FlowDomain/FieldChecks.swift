/// The field checks of SPEC §3, step 1: they look at the command alone, never at the state, and run
/// in the order the spec lists (identifiers, price, quantity, percent, tab, text).
public enum FieldChecks {
    public static let unitPriceRange = 0...100_000_000
    public static let quantityRange = 1...999
    public static let percentRange = 1...100
    public static let tabRange = 0...1

    /// The first field of `command` that breaks a rule, as a rejection; `nil` when every field is fine.
    public static func firstViolation(in command: AppCommand) -> Rejection? {
        let fields = Fields(command)
        for (role, id) in fields.identifiers where !Identifier.isValid(id) {
            return invalidIdentifier(id, role: role)
        }
        if let price = fields.unitPrice, !unitPriceRange.contains(price) {
            return Rejection(.invalidPrice, "The unit price \(price) cents is out of range; use 0 through \(unitPriceRange.upperBound) cents (0.00 to 1,000,000.00).")
        }
        if let quantity = fields.quantity, !quantityRange.contains(quantity) {
            return Rejection(.invalidQuantity, "The quantity \(quantity) is out of range; use a whole number from 1 through 999.")
        }
        if let percent = fields.percent, !percentRange.contains(percent) {
            return Rejection(.invalidPercent, "The discount of \(percent)% is out of range; use a whole percent from 1 through 100.")
        }
        if let tab = fields.tab, !tabRange.contains(tab) {
            return Rejection(.invalidTab, "Tab \(tab) does not exist; the home screen has tabs 0 and 1.")
        }
        for (role, text) in fields.texts where !FreeText.isValid(text) {
            return Rejection(.invalidText, "The \(role) is \(text.unicodeScalars.count) characters long; shorten it to at most \(FreeText.maximumLength).")
        }
        return nil
    }

    /// The rejection for an identifier that breaks SPEC §1's rule; `role` names it for the reader.
    public static func invalidIdentifier(_ id: String, role: String) -> Rejection {
        let shown = id.count > 80 ? String(id.prefix(80)) + "…" : id
        return Rejection(.invalidIdentifier, "The \(role) \"\(shown)\" is not a valid identifier; use 1 to 64 characters of A-Z a-z 0-9 . _ : -")
    }

    /// The checkable fields of one command, gathered once so the checks above read in spec order.
    private struct Fields {
        var identifiers: [(String, String)] = []
        var unitPrice: Int?
        var quantity: Int?
        var percent: Int?
        var tab: Int?
        var texts: [(String, String)] = []

        init(_ command: AppCommand) {
            switch command {
            case .cart(.addProduct(let productId, let name, let unitPrice, let quantity)):
                identifiers = [("product id", productId)]
                self.unitPrice = unitPrice
                self.quantity = quantity
                if let name { texts = [("product name", name)] }
            case .cart(.removeProduct(let productId, let quantity)):
                identifiers = [("product id", productId)]
                self.quantity = quantity
            case .cart(.applyDiscount(let discountId, let percent, let productId)):
                identifiers = [("discount id", discountId)]
                if let productId { identifiers.append(("product id", productId)) }
                self.percent = percent
            case .cart(.removeDiscount(let discountId)):
                identifiers = [("discount id", discountId)]
            case .payment(.succeeded(let orderId)):
                identifiers = [("order id", orderId)]
            case .payment(.failed(let reason)):
                texts = [("failure reason", reason)]
            case .home(.selectTab(let tab)):
                self.tab = tab
            case .cart(.checkout), .app, .welcome, .onboarding, .login, .home(.presentModal), .modal:
                break
            }
        }
    }
}
