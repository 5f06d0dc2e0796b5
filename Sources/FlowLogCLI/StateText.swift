import FlowDomain

/// A stream's state as text: the cart, the orders and the onboarding flow.
enum StateText {
    static func lines(_ state: FlowState, stream: String, version: Int) -> [String] {
        var lines = ["Stream \(stream), version \(version)", ""]
        let cart = state.cart
        lines.append("Cart (\(cart.status == .open ? "open" : "checking out"))")
        if cart.lines.isEmpty { lines.append("  (empty)") }
        for line in cart.lines {
            let discount = line.discount.map { "  \($0.label) (\($0.id)) → \(Money.format(cents: line.discountedAmount))" } ?? ""
            // Escaped before padding, so the columns line up as shown.
            lines.append(
                "  \(TextPadding.pad(line.productId, 12)) \(TextPadding.pad(TerminalText.escaped(line.name), 16)) \(line.quantity) × \(Money.format(cents: line.unitPrice)) = \(Money.format(cents: line.regularAmount))\(discount)"
            )
        }
        if let discount = cart.cartDiscount { lines.append("  Cart discount \(discount.id): \(discount.label)") }
        lines.append("  Subtotal \(Money.format(cents: cart.subtotal)), total \(Money.format(cents: cart.total, in: cart.currency))")
        lines.append("")
        lines.append("Orders")
        if state.orders.orders.isEmpty { lines.append("  (none)") }
        for order in state.orders.orders {
            lines.append(
                "  \(order.orderId): \(Money.format(cents: order.total, in: order.currency)) for \(order.itemCount) item\(order.itemCount == 1 ? "" : "s")"
            )
        }
        lines.append("")
        lines.append("Onboarding")
        lines.append("  " + navigation(state.navigation))
        return lines
    }

    static func navigation(_ navigation: Navigation) -> String {
        guard navigation.launched else { return "not launched" }
        let stack = navigation.stack.map(\.rawValue).joined(separator: " › ")
        return
            "screen \(navigation.topScreen?.rawValue ?? "none") (stack \(stack)), tab \(navigation.tab), modal \(navigation.isModalPresented ? "shown" : "none"), onboarded \(navigation.hasOnboarded ? "yes" : "no")"
    }

    /// One line: the cart, the number of orders and the navigation (`replay --summary`).
    static func summary(_ state: FlowState) -> String {
        "cart \(state.cart.status.rawValue) with \(state.cart.lines.count) line\(state.cart.lines.count == 1 ? "" : "s"), total \(Money.format(cents: state.cart.total)); \(state.orders.count) order\(state.orders.count == 1 ? "" : "s"); \(navigation(state.navigation))"
    }
}
