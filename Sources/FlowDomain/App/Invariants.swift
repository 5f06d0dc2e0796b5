public import Deciding

/// The shop's invariants: named properties every state the rules can produce has. Today's rules
/// never break them (the property tests check that); a state that breaks one came from events an
/// older or buggy version recorded, which is what `flowlog bisect --invariant NAME` hunts for.
extension FlowDecider {
    public static let invariants: [Invariant<FlowState>] = [
        Invariant(name: "totals-non-negative", summary: "subtotal, total, every line amount and every order total are 0 or more") { state in
            if let line = state.cart.lines.first(where: { $0.regularAmount < 0 || $0.discountedAmount < 0 }) {
                return "line \(line.productId) has a negative amount (\(line.discountedAmount) cents)"
            }
            if state.cart.subtotal < 0 { return "the subtotal is negative (\(state.cart.subtotal) cents)" }
            if state.cart.total < 0 { return "the total is negative (\(state.cart.total) cents)" }
            if let order = state.orders.orders.first(where: { $0.total < 0 }) { return "order \(order.orderId) has a negative total" }
            return nil
        },
        Invariant(name: "total-within-subtotal", summary: "the total is never above the subtotal") { state in
            state.cart.total > state.cart.subtotal ? "the total (\(state.cart.total)) is above the subtotal (\(state.cart.subtotal))" : nil
        },
        Invariant(name: "line-quantities", summary: "every line holds 1 through 999") { state in
            state.cart.lines.first { !(1...Cart.maximumLineQuantity).contains($0.quantity) }
                .map { "line \($0.productId) holds \($0.quantity)" }
        },
        Invariant(name: "cart-size", summary: "at most 100 lines, one per product") { state in
            if state.cart.lines.count > Cart.maximumLines { return "the cart has \(state.cart.lines.count) lines" }
            return Set(state.cart.lines.map(\.productId)).count == state.cart.lines.count ? nil : "a product has two lines"
        },
        Invariant(name: "discounts-valid", summary: "every applied discount is one the rules accept (1 through 100 percent)") { state in
            let discounts = state.cart.lines.compactMap(\.discount) + [state.cart.cartDiscount].compactMap { $0 }
            return discounts.lazy.compactMap(\.problem).first
        },
        Invariant(name: "checkout-not-empty", summary: "a cart that is checking out has at least one line") { state in
            state.cart.status == .checkingOut && state.cart.lines.isEmpty ? "the cart is checking out with no lines" : nil
        },
        Invariant(name: "unique-orders", summary: "no order id is used twice in a stream") { state in
            Set(state.orders.orders.map(\.orderId)).count == state.orders.orders.count ? nil : "an order id is used twice"
        },
        Invariant(name: "stack-not-empty", summary: "once launched, the navigation stack is never empty") { state in
            state.navigation.launched && state.navigation.stack.isEmpty ? "the app is launched with no screen" : nil
        },
        Invariant(name: "modal-on-home", summary: "the modal is shown only over the home screen") { state in
            state.navigation.isModalPresented && state.navigation.topScreen != .home
                ? "the modal is shown over \(state.navigation.topScreen?.rawValue ?? "no screen")" : nil
        },
        Invariant(name: "tab-valid", summary: "the selected tab is 0 or 1") { state in
            (0...1).contains(state.navigation.tab) ? nil : "tab \(state.navigation.tab) is selected"
        },
    ]
}
