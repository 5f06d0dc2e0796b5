import FlowDomain

/// One Segment call without its envelope (ids, times, context): `track` with an event name, or
/// `screen` with a screen name.
public struct SegmentCall: Equatable, Sendable {
    public enum CallType: String, Sendable { case track, screen }
    public let type: CallType
    public let name: String
    public let properties: [AnalyticsProperty]

    public init(_ type: CallType, _ name: String, _ properties: [AnalyticsProperty] = []) {
        (self.type, self.name, self.properties) = (type, name, properties)
    }
}

/// Events → Segment calls: the ecommerce v2 spec's events and property names for the cart, the
/// Native Mobile spec's Application Opened, the B2B SaaS spec's Signed Up and Signed In, `screen`
/// calls for the screens the onboarding flow shows; every other kind gets the derived custom event
/// (`DerivedMapping`). Pure: docs/analytics.md's table is generated from it.
public enum SegmentMapping {
    public static func calls(for tracked: TrackedEvent, settings: AnalyticsSettings) -> [SegmentCall] {
        let currency = settings.currencyProperty(of: tracked)
        let cart = tracked.cart
        switch tracked.record.event {
        case .cart(.productAdded(let added)):
            return [
                SegmentCall(
                    .track, "Product Added",
                    [
                        .init("cart_id", .string(tracked.cartId)), .init("product_id", .string(added.productId)),
                        .init("name", .string(added.name)), .init("price", .money(added.unitPrice)),
                        .init("quantity", .int(added.quantity)), currency,
                        .init("value", .money(Money.product(added.unitPrice, added.quantity))),
                    ])
            ]
        case .cart(.productRemoved(let removed)):
            var properties: [AnalyticsProperty] = [.init("cart_id", .string(tracked.cartId)), .init("product_id", .string(removed.productId))]
            if let line = cart.lineIndex(of: removed.productId).map({ cart.lines[$0] }) {
                properties += [.init("name", .string(line.name)), .init("price", .money(line.unitPrice))]
                properties += [
                    .init("quantity", .int(removed.quantity)), currency, .init("value", .money(Money.product(line.unitPrice, removed.quantity))),
                ]
            } else {
                properties += [.init("quantity", .int(removed.quantity))]
            }
            return [SegmentCall(.track, "Product Removed", properties)]
        case .cart(.discountApplied(let discount)):
            let after = tracked.after.cart
            var properties: [AnalyticsProperty] = [
                .init("cart_id", .string(tracked.cartId)), .init("coupon_id", .string(discount.discountId)),
                .init("discount", .money(after.amount(ofDiscount: discount.discountId))), currency,
                .init("discount_percent", .int(discount.percent)),
            ]
            if let productId = discount.productId { properties.append(.init("product_id", .string(productId))) }
            return [SegmentCall(.track, "Coupon Applied", properties)]
        case .cart(.discountRemoved(let discount)):
            return [
                SegmentCall(
                    .track, "Coupon Removed",
                    [
                        .init("cart_id", .string(tracked.cartId)), .init("coupon_id", .string(discount.discountId)),
                        .init("discount", .money(cart.amount(ofDiscount: discount.discountId))), currency,
                    ])
            ]
        case .cart(.checkoutStarted(let checkout)):
            var properties: [AnalyticsProperty] = [.init("cart_id", .string(tracked.cartId))]
            if let checkoutId = tracked.checkoutId { properties.append(.init("checkout_id", .string(checkoutId))) }
            // No `revenue` here: destinations add up `revenue`, and only Order Completed earns it.
            properties.append(.init("value", .money(checkout.total)))
            properties += orderAmounts(cart, subtotal: nil, currency: currency)
            return [SegmentCall(.track, "Checkout Started", properties)]
        case .cart(.orderPlaced(let order)):
            var properties: [AnalyticsProperty] = [.init("order_id", .string(order.orderId)), .init("cart_id", .string(tracked.cartId))]
            if let checkoutId = tracked.checkoutId { properties.append(.init("checkout_id", .string(checkoutId))) }
            properties += [.init("total", .money(order.total)), .init("revenue", .money(order.total))]
            properties += orderAmounts(cart, subtotal: order.total, currency: currency)
            return [SegmentCall(.track, "Order Completed", properties)]
        case .navigation(.appLaunched(let launch)):
            return [
                SegmentCall(
                    .track, "Application Opened", [.init("from_background", .bool(false)), .init("has_onboarded", .bool(launch.hasOnboarded))]),
                screenCall(tracked),
            ]
        case .navigation(.onboardingFinished):
            return [SegmentCall(.track, "Signed Up", [.init("type", .string("onboarding"))]), screenCall(tracked)]
        case .navigation(.loginSucceeded):
            return [SegmentCall(.track, "Signed In"), screenCall(tracked)]
        case .navigation(.signUpStarted), .navigation(.logInStarted), .navigation(.onboardingAdvanced),
            .navigation(.onboardingWentBack), .navigation(.loginCancelled), .navigation(.tabSelected),
            .navigation(.modalPresented), .navigation(.modalDismissed):
            return [screenCall(tracked)]
        default:
            // Any kind without a spec event, today's (cart.paymentFailed) and tomorrow's.
            let typeName = tracked.record.event.typeName
            return [
                SegmentCall(.track, DerivedMapping.segmentName(typeName), DerivedMapping.properties(of: tracked.record.event, settings: settings))
            ]
        }
    }

    /// The amounts and lines Checkout Started and Order Completed share: the order's `subtotal` (after
    /// discounts, before tax and shipping, which FlowLog has none of, as the spec defines it), `discount` (every
    /// discount in cents off the regular prices), the cart `coupon`, and `products[]`.
    static func orderAmounts(_ cart: Cart, subtotal: Int?, currency: AnalyticsProperty) -> [AnalyticsProperty] {
        var properties: [AnalyticsProperty] = subtotal.map { [.init("subtotal", .money($0))] } ?? []
        properties.append(.init("discount", .money(cart.discountAmount)))
        if let coupon = cart.cartDiscount?.id { properties.append(.init("coupon", .string(coupon))) }
        properties.append(currency)
        properties.append(.init("products", .list(cart.lines.enumerated().map { index, line in .object(product(line, position: index + 1)) })))
        return properties
    }

    static func product(_ line: CartLine, position: Int) -> [AnalyticsProperty] {
        var product: [AnalyticsProperty] = [
            .init("product_id", .string(line.productId)), .init("name", .string(line.name)),
            .init("price", .money(line.unitPrice)), .init("quantity", .int(line.quantity)), .init("position", .int(position)),
        ]
        if let coupon = line.discount?.id { product.append(.init("coupon", .string(coupon))) }
        return product
    }

    /// The screen the event leaves on view: the modal over home, or the top of the stack.
    static func screenCall(_ tracked: TrackedEvent) -> SegmentCall {
        let navigation = tracked.after.navigation
        if navigation.isModalPresented { return SegmentCall(.screen, "Modal") }
        guard let screen = navigation.topScreen else { return SegmentCall(.screen, "Unknown") }
        let name = DerivedMapping.segmentName(screen.rawValue)
        return SegmentCall(.screen, name, screen == .home ? [.init("tab", .int(navigation.tab))] : [])
    }
}
