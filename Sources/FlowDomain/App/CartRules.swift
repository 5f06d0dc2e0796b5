import Deciding

/// The cart's half of the Decider: state checks of SPEC §3 (`decide`) and the fold (`evolve`).
enum CartRules {
    static func decide(_ command: CartCommand, _ cart: Cart, _ context: DecisionContext) throws(Rejection) -> CartEvent {
        try requireOpen(cart)
        switch command {
        case .addProduct(let command):
            let (productId, unitPrice, quantity) = (command.productId, command.unitPrice, command.quantity)
            let currency = command.currency ?? context.defaultCurrency
            if let held = cart.currency, held != currency {
                throw Rejection(
                    .currencyMismatch,
                    "The cart is in \(held), and product \(productId) is in \(currency); a cart holds one currency. Add it in \(held), or check out first."
                )
            }
            if let index = cart.lineIndex(of: productId) {
                let line = cart.lines[index]
                guard line.unitPrice == unitPrice else {
                    throw Rejection(
                        .priceMismatch,
                        "Product \(productId) is in the cart at \(Money.format(cents: line.unitPrice)), not \(Money.format(cents: unitPrice)); add it at the same unit price, or remove it first."
                    )
                }
                guard Money.sum(line.quantity, quantity) <= Cart.maximumLineQuantity else {
                    throw Rejection(
                        .quantityLimit,
                        "Product \(productId) has \(line.quantity) in the cart; adding \(quantity) would exceed \(Cart.maximumLineQuantity). Add at most \(Cart.maximumLineQuantity - line.quantity)."
                    )
                }
            } else if cart.lines.count >= Cart.maximumLines {
                throw Rejection(.cartFull, "The cart already holds \(Cart.maximumLines) different products; remove one before adding \(productId).")
            }
            return .productAdded(
                .init(
                    productId: productId, name: command.name ?? productId, unitPrice: unitPrice, quantity: quantity,
                    currency: currency))

        case .removeProduct(let command):
            let productId = command.productId
            let line = try requireLine(productId, in: cart)
            if let quantity = command.quantity, quantity > line.quantity {
                throw Rejection(
                    .invalidQuantity,
                    "Product \(productId) has only \(line.quantity) in the cart; remove at most \(line.quantity), or leave out the quantity to remove the whole line."
                )
            }
            return .productRemoved(.init(productId: productId, quantity: command.quantity ?? line.quantity))

        case .changeQuantity(let command):
            // The field check holds the quantity to 1…999, the line limit; 0 is `removeProduct`'s job.
            _ = try requireLine(command.productId, in: cart)
            return .quantityChanged(.init(productId: command.productId, quantity: command.quantity))

        case .applyDiscount(let command):
            let discountId = command.discountId
            guard !cart.isApplied(discountId: discountId) else {
                throw Rejection(.duplicateDiscount, "Discount \(discountId) is already applied; remove it first or use another discount id.")
            }
            if let productId = command.productId { _ = try requireLine(productId, in: cart) }
            return .discountApplied(
                .init(
                    discountId: discountId, percent: command.percent ?? 0, amountOff: command.amountOff ?? 0,
                    productId: command.productId))

        case .removeDiscount(let command):
            let discountId = command.discountId
            guard cart.isApplied(discountId: discountId) else {
                throw Rejection(
                    .discountNotApplied,
                    "Discount \(discountId) is not applied to the cart or any of its products; check the id with `flowlog state`.")
            }
            return .discountRemoved(.init(discountId: discountId))

        case .checkout:
            guard !cart.lines.isEmpty else {
                throw Rejection(.emptyCart, "The cart is empty; add a product before checking out.")
            }
            return .checkoutStarted(.init(total: cart.total, itemCount: cart.itemCount))
        }
    }

    static func decide(_ command: PaymentCommand, _ state: FlowState) throws(Rejection) -> CartEvent {
        guard state.cart.status == .checkingOut else {
            throw Rejection(.noCheckoutInProgress, "No checkout is in progress, so there is no payment to settle; check out the cart first.")
        }
        switch command {
        case .succeeded(let command):
            let orderId = command.orderId
            guard !state.orders.contains(orderId: orderId) else {
                throw Rejection(.duplicateOrder, "Order \(orderId) was already placed in this stream; use a new order id.")
            }
            return .orderPlaced(.init(orderId: orderId, total: state.cart.total, itemCount: state.cart.itemCount))
        case .failed(let command):
            return .paymentFailed(.init(reason: command.reason))
        }
    }

    static func evolve(_ state: inout FlowState, _ event: CartEvent) {
        switch event {
        case .productAdded(let event):
            if let index = state.cart.lineIndex(of: event.productId) {
                state.cart.lines[index].quantity = Money.sum(state.cart.lines[index].quantity, event.quantity)
            } else {
                state.cart.lines.append(CartLine(productId: event.productId, name: event.name, unitPrice: event.unitPrice, quantity: event.quantity))
            }
            if state.cart.currency == nil { state.cart.currency = event.currency }
        case .productRemoved(let event):
            guard let index = state.cart.lineIndex(of: event.productId) else { return }
            state.cart.lines[index].quantity = Money.difference(state.cart.lines[index].quantity, event.quantity)
            if state.cart.lines[index].quantity <= 0 {
                state.cart.lines.remove(at: index)
                // A cart without a line has no currency: the next product sets it.
                if state.cart.lines.isEmpty { state.cart.currency = nil }
            }
        case .quantityChanged(let event):
            guard let index = state.cart.lineIndex(of: event.productId) else { return }
            state.cart.lines[index].quantity = event.quantity
        case .discountApplied(let event):
            let discount = Discount(id: event.discountId, percent: event.percent, amountOff: event.amountOff)
            if let productId = event.productId {
                guard let index = state.cart.lineIndex(of: productId) else { return }
                state.cart.lines[index].discount = discount
            } else {
                state.cart.cartDiscount = discount
            }
        case .discountRemoved(let event):
            let discountId = event.discountId
            if state.cart.cartDiscount?.id == discountId {
                state.cart.cartDiscount = nil
            }
            for index in state.cart.lines.indices where state.cart.lines[index].discount?.id == discountId {
                state.cart.lines[index].discount = nil
            }
        case .checkoutStarted:
            state.cart.status = .checkingOut
        case .orderPlaced(let event):
            state.orders.append(
                Order(
                    orderId: event.orderId, total: event.total, itemCount: event.itemCount,
                    currency: state.cart.currency ?? Money.currencyOfEarlierCarts))
            state.cart = Cart()
        case .paymentFailed:
            state.cart.status = .open
        }
    }

    private static func requireOpen(_ cart: Cart) throws(Rejection) {
        guard cart.status == .open else {
            throw Rejection(
                .cartNotOpen, "The cart is checking out and cannot change; settle the payment (payment.succeeded or payment.failed) first.")
        }
    }

    private static func requireLine(_ productId: String, in cart: Cart) throws(Rejection) -> CartLine {
        guard let index = cart.lineIndex(of: productId) else {
            throw Rejection(.productNotInCart, "Product \(productId) is not in the cart; add it first, or check the id with `flowlog state`.")
        }
        return cart.lines[index]
    }
}
