import FlowDomain

/// What a screen shows, as plain values: strings, numbers and flags, nothing from the domain (seed
/// "CodeVerificationView.Configuration"). The view projector computes these from a stream's state,
/// so a screen can be drawn, snapshot-tested or sent to a client without knowing the rules.
public struct CartViewConfiguration: Equatable, Sendable {
    public struct Row: Equatable, Sendable {
        public var title: String
        public var quantityText: String
        public var amountText: String
        /// "-10% (MUG10)", or nil without a product discount.
        public var discountText: String?
        public var finalAmountText: String
    }

    public var title: String
    public var rows: [Row]
    /// Shown instead of rows when the cart is empty.
    public var emptyText: String?
    public var cartDiscountText: String?
    public var subtotalText: String
    public var totalText: String
    public var checkoutButtonTitle: String
    public var isCheckoutEnabled: Bool
    /// Shown while a checkout waits for the payment provider.
    public var statusText: String?
    public var ordersText: String
}

/// One onboarding-flow screen (welcome, the two onboarding screens, log-in, home) as plain values.
public struct ScreenConfiguration: Equatable, Sendable {
    public struct Button: Equatable, Sendable {
        public var title: String
        public var isEnabled: Bool
    }

    /// A stable name for the screen, for clients and tests.
    public var screen: String
    public var title: String
    public var message: String
    public var buttons: [Button]
    public var tabTitles: [String]
    public var selectedTab: Int?
    public var isBackVisible: Bool
    /// The modal shown over the screen, if any.
    public var modalTitle: String?
    public var modalButtons: [Button]
}

/// The view projector: pure functions from state to configurations, recomputed whenever needed.
public enum ViewProjector {
    public static func cart(_ state: FlowState) -> CartViewConfiguration {
        let cart = state.cart
        let checkingOut = cart.status == .checkingOut
        let rows = cart.lines.map { line in
            CartViewConfiguration.Row(
                title: line.name,
                quantityText: "\(line.quantity) × \(Money.format(cents: line.unitPrice))",
                amountText: Money.format(cents: line.regularAmount),
                discountText: line.discount.map { "-\($0.percent)% (\($0.id))" },
                finalAmountText: Money.format(cents: line.discountedAmount))
        }
        let items = cart.itemCount
        let orders = state.orders.orders.count
        return CartViewConfiguration(
            title: items == 0 ? "Your cart" : "Your cart (\(items) item\(items == 1 ? "" : "s"))",
            rows: rows,
            emptyText: rows.isEmpty ? "Your cart is empty." : nil,
            cartDiscountText: cart.cartDiscount.map { "\($0.id): -\($0.percent)% on the whole cart" },
            subtotalText: "Subtotal \(Money.format(cents: cart.subtotal))",
            totalText: "Total \(Money.format(cents: cart.total))",
            checkoutButtonTitle: checkingOut ? "Paying…" : "Check out",
            isCheckoutEnabled: !checkingOut && !cart.lines.isEmpty,
            statusText: checkingOut ? "Waiting for the payment provider to confirm \(Money.format(cents: cart.total))." : nil,
            ordersText: orders == 0 ? "No orders yet" : "\(orders) order\(orders == 1 ? "" : "s") placed")
    }

    public static func screen(_ navigation: Navigation) -> ScreenConfiguration {
        let modalShown = navigation.isModalPresented
        func button(_ title: String) -> ScreenConfiguration.Button { .init(title: title, isEnabled: !modalShown) }
        var configuration = ScreenConfiguration(screen: "launching", title: "Starting…", message: "The app has not been launched yet.",
                                                buttons: [], tabTitles: [], selectedTab: nil, isBackVisible: false,
                                                modalTitle: modalShown ? "A special offer" : nil,
                                                modalButtons: modalShown ? [.init(title: "Dismiss", isEnabled: true)] : [])
        guard navigation.launched, let top = navigation.topScreen else { return configuration }
        configuration.screen = top.rawValue
        configuration.isBackVisible = navigation.stack.count > 1
        switch top {
        case .welcome:
            configuration.title = "Welcome"
            configuration.message = "Shop your favourite things in a few taps."
            configuration.buttons = [button("Sign up"), button("Log in")]
        case .onboardingFirst:
            configuration.title = "Discover"
            configuration.message = "Browse products and add them to your cart."
            configuration.buttons = [button("Next")]
        case .onboardingSecond:
            configuration.title = "Save"
            configuration.message = "Apply coupons and check out securely."
            configuration.buttons = [button("Get started")]
        case .login:
            configuration.title = "Log in"
            configuration.message = "Welcome back."
            configuration.buttons = [button("Log in"), button("Cancel")]
        case .home:
            configuration.title = navigation.tab == 0 ? "Shop" : "Orders"
            configuration.message = navigation.hasOnboarded ? "Good to see you." : "Welcome."
            configuration.buttons = [button("Show offer")]
            configuration.tabTitles = ["Shop", "Orders"]
            configuration.selectedTab = navigation.tab
        }
        return configuration
    }

    public static func writeJSON(cart: CartViewConfiguration, screen: ScreenConfiguration, stream: String, version: Int, into json: inout JSONWriter) {
        json.beginObject()
        json.key("stream"); json.string(stream)
        json.key("version"); json.int(version)
        json.key("screen"); json.beginObject()
        json.key("screen"); json.string(screen.screen)
        json.key("title"); json.string(screen.title)
        json.key("message"); json.string(screen.message)
        json.key("buttons"); writeButtons(screen.buttons, into: &json)
        json.key("tabTitles"); json.beginArray(); for title in screen.tabTitles { json.string(title) }; json.endArray()
        json.key("selectedTab"); if let tab = screen.selectedTab { json.int(tab) } else { json.null() }
        json.key("isBackVisible"); json.bool(screen.isBackVisible)
        json.key("modalTitle"); json.string(screen.modalTitle)
        json.key("modalButtons"); writeButtons(screen.modalButtons, into: &json)
        json.endObject()
        json.key("cart"); json.beginObject()
        json.key("title"); json.string(cart.title)
        json.key("rows"); json.beginArray()
        for row in cart.rows {
            json.beginObject()
            json.key("title"); json.string(row.title)
            json.key("quantityText"); json.string(row.quantityText)
            json.key("amountText"); json.string(row.amountText)
            json.key("discountText"); json.string(row.discountText)
            json.key("finalAmountText"); json.string(row.finalAmountText)
            json.endObject()
        }
        json.endArray()
        json.key("emptyText"); json.string(cart.emptyText)
        json.key("cartDiscountText"); json.string(cart.cartDiscountText)
        json.key("subtotalText"); json.string(cart.subtotalText)
        json.key("totalText"); json.string(cart.totalText)
        json.key("checkoutButtonTitle"); json.string(cart.checkoutButtonTitle)
        json.key("isCheckoutEnabled"); json.bool(cart.isCheckoutEnabled)
        json.key("statusText"); json.string(cart.statusText)
        json.key("ordersText"); json.string(cart.ordersText)
        json.endObject()
        json.endObject()
    }

    private static func writeButtons(_ buttons: [ScreenConfiguration.Button], into json: inout JSONWriter) {
        json.beginArray()
        for button in buttons {
            json.beginObject()
            json.key("title"); json.string(button.title)
            json.key("isEnabled"); json.bool(button.isEnabled)
            json.endObject()
        }
        json.endArray()
    }
}
