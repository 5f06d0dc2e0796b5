public import FlowDomain
public import FlowLogBasics

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
                discountText: line.discount.map { "\($0.label) (\($0.id))" },
                finalAmountText: Money.format(cents: line.discountedAmount))
        }
        let items = cart.itemCount
        let orders = state.orders.orders.count
        return CartViewConfiguration(
            title: items == 0 ? "Your cart" : "Your cart (\(items) item\(items == 1 ? "" : "s"))",
            rows: rows,
            emptyText: rows.isEmpty ? "Your cart is empty." : nil,
            cartDiscountText: cart.cartDiscount.map { "\($0.id): \($0.label) on the whole cart" },
            subtotalText: "Subtotal \(Money.format(cents: cart.subtotal))",
            totalText: "Total \(Money.format(cents: cart.total, in: cart.currency))",
            checkoutButtonTitle: checkingOut ? "Paying…" : "Check out",
            isCheckoutEnabled: !checkingOut && !cart.lines.isEmpty,
            statusText: checkingOut ? "Waiting for the payment provider to confirm \(Money.format(cents: cart.total, in: cart.currency))." : nil,
            ordersText: orders == 0 ? "No orders yet" : "\(orders) order\(orders == 1 ? "" : "s") placed")
    }

    public static func screen(_ navigation: Navigation) -> ScreenConfiguration {
        let modalShown = navigation.isModalPresented
        func button(_ title: String) -> ScreenConfiguration.Button { .init(title: title, isEnabled: !modalShown) }
        var configuration = ScreenConfiguration(
            screen: "launching", title: "Starting…", message: "The app has not been launched yet.",
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

    public static func writeJSON(cart: CartViewConfiguration, screen: ScreenConfiguration, stream: String, version: Int, into json: inout JSONWriter)
    {
        json.object { json in
            json.field("stream", stream)
            json.field("version", version)
            json.key("screen")
            json.object { json in
                json.field("screen", screen.screen)
                json.field("title", screen.title)
                json.field("message", screen.message)
                json.key("buttons")
                writeButtons(screen.buttons, into: &json)
                json.field("tabTitles", screen.tabTitles)
                json.field("selectedTab", screen.selectedTab)
                json.field("isBackVisible", screen.isBackVisible)
                json.field("modalTitle", screen.modalTitle)
                json.key("modalButtons")
                writeButtons(screen.modalButtons, into: &json)
            }
            json.key("cart")
            json.object { json in
                json.field("title", cart.title)
                json.key("rows")
                json.array(cart.rows) { json, row in
                    json.object { json in
                        json.field("title", row.title)
                        json.field("quantityText", row.quantityText)
                        json.field("amountText", row.amountText)
                        json.field("discountText", row.discountText)
                        json.field("finalAmountText", row.finalAmountText)
                    }
                }
                json.field("emptyText", cart.emptyText)
                json.field("cartDiscountText", cart.cartDiscountText)
                json.field("subtotalText", cart.subtotalText)
                json.field("totalText", cart.totalText)
                json.field("checkoutButtonTitle", cart.checkoutButtonTitle)
                json.field("isCheckoutEnabled", cart.isCheckoutEnabled)
                json.field("statusText", cart.statusText)
                json.field("ordersText", cart.ordersText)
            }
        }
    }

    private static func writeButtons(_ buttons: [ScreenConfiguration.Button], into json: inout JSONWriter) {
        json.array(buttons) { json, button in
            json.object { json in
                json.field("title", button.title)
                json.field("isEnabled", button.isEnabled)
            }
        }
    }
}
