import FlowDomain

/// One GA4 event: a name and its parameters.
public struct GA4Event: Equatable, Sendable {
    public let name: String
    public let params: [AnalyticsProperty]

    public init(_ name: String, _ params: [AnalyticsProperty] = []) { (self.name, self.params) = (name, params) }
}

/// Events → GA4 events: the recommended events where GA4 has one (`add_to_cart`, `remove_from_cart`,
/// `begin_checkout`, `purchase`, `sign_up`, `login`, `tutorial_begin`, `tutorial_complete`,
/// `select_content`), custom events for the coupons, and the derived custom event for every other
/// kind. Screens are not sent: `screen_view` is reserved for app streams, and a web stream's
/// measurement id is what the Measurement Protocol takes. Names and values are kept within GA4's
/// limits by `GA4Names` when the request is written.
public enum GA4Mapping {
    public static func events(for tracked: TrackedEvent, settings: AnalyticsSettings) -> [GA4Event] {
        let currency = settings.currencyProperty(of: tracked)
        let cart = tracked.cart
        switch tracked.record.event {
        case .cart(.productAdded(let added)):
            return [
                GA4Event(
                    "add_to_cart",
                    [
                        currency, .init("value", .money(added.unitPrice * added.quantity)),
                        .init(
                            "items",
                            .list([
                                .object([
                                    .init("item_id", .string(added.productId)), .init("item_name", .string(added.name)),
                                    .init("price", .money(added.unitPrice)), .init("quantity", .int(added.quantity)),
                                ])
                            ])),
                    ])
            ]
        case .cart(.productRemoved(let removed)):
            let line = cart.lineIndex(of: removed.productId).map { cart.lines[$0] }
            var item: [AnalyticsProperty] = [.init("item_id", .string(removed.productId))]
            if let line { item += [.init("item_name", .string(line.name)), .init("price", .money(line.unitPrice))] }
            item.append(.init("quantity", .int(removed.quantity)))
            return [
                GA4Event(
                    "remove_from_cart",
                    [currency, .init("value", .money((line?.unitPrice ?? 0) * removed.quantity)), .init("items", .list([.object(item)]))])
            ]
        case .cart(.discountApplied(let discount)):
            var params: [AnalyticsProperty] = [.init("coupon", .string(discount.discountId)), .init("discount_percent", .int(discount.percent))]
            if let productId = discount.productId { params.append(.init("item_id", .string(productId))) }
            return [GA4Event("coupon_applied", params)]
        case .cart(.discountRemoved(let discount)):
            return [GA4Event("coupon_removed", [.init("coupon", .string(discount.discountId))])]
        case .cart(.checkoutStarted(let checkout)):
            return [GA4Event("begin_checkout", [currency, .init("value", .money(checkout.total))] + coupon(cart) + [items(cart)])]
        case .cart(.orderPlaced(let order)):
            return [
                GA4Event(
                    "purchase",
                    [.init("transaction_id", .string(order.orderId)), currency, .init("value", .money(order.total))] + coupon(cart) + [items(cart)])
            ]
        case .navigation(.signUpStarted):
            return [GA4Event("tutorial_begin")]
        case .navigation(.onboardingFinished):
            return [GA4Event("tutorial_complete"), GA4Event("sign_up", [.init("method", .string("onboarding"))])]
        case .navigation(.loginSucceeded):
            return [GA4Event("login")]
        case .navigation(.tabSelected(let selection)):
            return [GA4Event("select_content", [.init("content_type", .string("tab")), .init("content_id", .string("\(selection.tab)"))])]
        default:
            let event = tracked.record.event
            return [GA4Event(DerivedMapping.ga4Name(event.typeName), DerivedMapping.properties(of: event, settings: settings))]
        }
    }

    static func coupon(_ cart: Cart) -> [AnalyticsProperty] {
        cart.cartDiscount.map { [AnalyticsProperty("coupon", .string($0.id))] } ?? []
    }

    /// The cart's lines as GA4 items; `discount` is the product discount per unit, in currency units.
    static func items(_ cart: Cart) -> AnalyticsProperty {
        AnalyticsProperty(
            "items",
            .list(
                cart.lines.enumerated().map { index, line in
                    var item: [AnalyticsProperty] = [
                        .init("item_id", .string(line.productId)), .init("item_name", .string(line.name)),
                        .init("price", .money(line.unitPrice)), .init("quantity", .int(line.quantity)), .init("index", .int(index)),
                    ]
                    if let discount = line.discount {
                        item += [
                            .init("coupon", .string(discount.id)),
                            .init("discount", .money(Money.difference(line.regularAmount, line.discountedAmount) / max(line.quantity, 1))),
                        ]
                    }
                    return .object(item)
                }))
    }
}

/// GA4's naming and value rules, applied to whatever a mapping gives: names of letters, digits and
/// underscores starting with a letter, at most 40 characters; not a reserved name or prefix; string
/// values at most 100 characters. A name that breaks a rule is mended (never dropped), so a new kind's
/// derived event always goes through.
public enum GA4Names {
    public static let maximumNameLength = 40
    public static let maximumValueLength = 100
    /// Event names GA4 reserves (Measurement Protocol reference), including those reserved on web streams.
    public static let reservedEventNames: Set<String> = [
        "ad_activeview", "ad_click", "ad_exposure", "ad_impression", "ad_query", "ad_reward", "adunit_exposure",
        "app_clear_data", "app_exception", "app_install", "app_remove", "app_store_refund", "app_update",
        "app_upgrade", "dynamic_link_app_open", "dynamic_link_app_update", "dynamic_link_first_open", "error",
        "firebase_campaign", "firebase_in_app_message_action", "firebase_in_app_message_dismiss",
        "firebase_in_app_message_impression", "first_open", "first_visit", "in_app_purchase", "notification_dismiss",
        "notification_foreground", "notification_open", "notification_receive", "notification_send", "os_update",
        "screen_view", "session_start", "user_engagement",
    ]
    public static let reservedPrefixes = ["firebase_", "google_", "ga_", "_"]

    /// A valid event name made from `name`; reserved names get the `flowlog_` prefix.
    public static func eventName(_ name: String) -> String {
        let valid = validName(name)
        let reserved = reservedEventNames.contains(valid) || reservedPrefixes.contains { valid.hasPrefix($0) }
        return reserved ? validName("flowlog_" + valid) : valid
    }

    /// A valid parameter name made from `name`.
    public static func paramName(_ name: String) -> String {
        let valid = validName(name)
        return reservedPrefixes.contains { valid.hasPrefix($0) } || valid == "firebase_conversion" ? validName("p_" + valid) : valid
    }

    /// A name already valid goes through as it is: every name the mappings give is one, and mending
    /// each of them anew (a `Character` per scalar, a `String` built from them) took a third of the
    /// CPU time of a `projections run` over a million sessions.
    static func validName(_ name: String) -> String {
        isValid(name) ? name : mendedName(name)
    }

    /// Whether `name` breaks none of the rules `mendedName` mends: ASCII letters, digits and
    /// underscores only, a letter first, at most `maximumNameLength` of them; read as bytes.
    static func isValid(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard let first = utf8.first, isLetter(first), utf8.count <= maximumNameLength else { return false }
        return utf8.allSatisfy(isNameByte)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// What a name may hold, for the check and the mending alike: ASCII letters, digits and underscores.
    private static func isNameByte(_ byte: UInt8) -> Bool { isLetter(byte) || (0x30...0x39).contains(byte) || byte == 0x5F }

    /// `name` with every scalar a name may not hold made `_`, an `e` before it unless it begins
    /// with a letter, cut to `maximumNameLength` characters.
    static func mendedName(_ name: String) -> String {
        var characters = name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && isNameByte(UInt8(scalar.value)) ? Character(scalar) : "_"
        }
        if characters.first.map({ !$0.isLetter }) ?? true { characters.insert("e", at: 0) }
        return String(characters.prefix(maximumNameLength))
    }

    /// `value` with its strings cut to GA4's 100 characters and its names made valid, recursively.
    public static func limited(_ value: AnalyticsValue) -> AnalyticsValue {
        switch value {
        // No more bytes than the limit is no more characters either, without counting them.
        case .string(let text):
            .string(
                text.utf8.count <= maximumValueLength || text.count <= maximumValueLength ? text : String(text.prefix(maximumValueLength)))
        case .list(let values): .list(values.map(limited))
        case .object(let properties): .object(limited(properties))
        default: value
        }
    }

    public static func limited(_ properties: [AnalyticsProperty]) -> [AnalyticsProperty] {
        properties.map { AnalyticsProperty(paramName($0.name), limited($0.value)) }
    }
}
