import FlowDomain
import FlowLogProjections

/// The screen and the cart drawn as text for a terminal, from their view configurations.
enum ViewText {
    static func lines(cart: CartViewConfiguration, screen: ScreenConfiguration) -> [String] {
        func button(_ title: String, isEnabled: Bool) -> String { isEnabled ? "[ \(title) ]" : "( \(title) )" }
        func buttons(_ list: [ScreenConfiguration.Button]) -> String {
            list.map { button($0.title, isEnabled: $0.isEnabled) }.joined(separator: "  ")
        }
        var lines = ["┌─ \(screen.title) " + String(repeating: "─", count: max(2, 40 - screen.title.count))]
        if screen.isBackVisible { lines.append("│ ‹ Back") }
        lines.append("│ \(screen.message)")
        if !screen.tabTitles.isEmpty {
            lines.append(
                "│ "
                    + screen.tabTitles.enumerated().map { $0.offset == screen.selectedTab ? "▸\($0.element)◂" : " \($0.element) " }.joined(
                        separator: " | "))
        }
        if !screen.buttons.isEmpty { lines.append("│ " + buttons(screen.buttons)) }
        if let modal = screen.modalTitle { lines.append("│ ╔═ \(modal) ═╗  " + buttons(screen.modalButtons)) }
        lines.append("├─ \(cart.title)")
        if let empty = cart.emptyText { lines.append("│ \(empty)") }
        for row in cart.rows {
            lines.append(
                "│ \(row.title): \(row.quantityText) = \(row.amountText)\(row.discountText.map { "  \($0) → \(row.finalAmountText)" } ?? "")")
        }
        if let discount = cart.cartDiscountText { lines.append("│ \(discount)") }
        lines.append("│ \(cart.subtotalText) · \(cart.totalText)")
        if let status = cart.statusText { lines.append("│ \(status)") }
        lines.append("│ " + button(cart.checkoutButtonTitle, isEnabled: cart.isCheckoutEnabled) + "   \(cart.ordersText)")
        lines.append("└" + String(repeating: "─", count: 42))
        return lines
    }

    /// One line of what the screen and the cart show (`demo`).
    static func summary(_ state: FlowState) -> String {
        let screen = ViewProjector.screen(state.navigation)
        let cart = ViewProjector.cart(state)
        let buttons = screen.buttons.map { $0.isEnabled ? "[\($0.title)]" : "(\($0.title))" }.joined(separator: " ")
        let modal = screen.modalTitle.map { " + modal \"\($0)\"" } ?? ""
        let checkout = cart.isCheckoutEnabled ? "[\(cart.checkoutButtonTitle)]" : "(\(cart.checkoutButtonTitle))"
        return "view: \"\(screen.title)\" \(buttons)\(modal) · \(cart.title) · \(cart.totalText) · \(checkout)"
    }
}
