public import FlowDomain
public import FlowLogBasics

/// The shop's state as JSON (SPEC §5): the cart with its amounts, the orders, the onboarding
/// flow (`LogDomain.writeStateMembers`).
extension FlowDecider {
    /// A cart in USD is what a state written before carts had a currency meant: an older build's
    /// state, lacking the member, agrees with one that holds either of these.
    public static let stateMembersAddedLater: [String: [JSONValue]] = ["currency": [.null, .string(Money.currencyOfEarlierCarts)]]

    public static func writeStateMembers(_ state: FlowState, into json: inout JSONWriter, drain: ((inout JSONWriter) -> Void)?) {
        json.key("cart")
        json.beginObject()
        json.key("status")
        json.string(state.cart.status.rawValue)
        json.key("items")
        json.beginArray()
        for line in state.cart.lines {
            json.beginObject()
            json.key("productId")
            json.string(line.productId)
            json.key("name")
            json.string(line.name)
            json.key("unitPrice")
            json.int(line.unitPrice)
            json.key("quantity")
            json.int(line.quantity)
            json.key("discount")
            writeDiscount(line.discount, into: &json)
            json.key("regularAmount")
            json.int(line.regularAmount)
            json.key("discountedAmount")
            json.int(line.discountedAmount)
            json.endObject()
        }
        json.endArray()
        json.key("cartDiscount")
        writeDiscount(state.cart.cartDiscount, into: &json)
        json.key("subtotal")
        json.int(state.cart.subtotal)
        json.key("total")
        json.int(state.cart.total)
        json.key("currency")
        if let currency = state.cart.currency { json.string(currency) } else { json.null() }
        json.endObject()
        json.key("orders")
        json.beginArray()
        for order in state.orders.orders {
            // Fixed fragments: a long-lived stream has tens of thousands of orders.
            json.separate()
            json.raw(#"{"orderId":"#)
            json.rawString(order.orderId)
            json.raw(#","total":"#)
            json.rawInt(order.total)
            json.raw(#","itemCount":"#)
            json.rawInt(order.itemCount)
            json.raw(#","currency":"#)
            json.rawString(order.currency)
            json.raw("}")
            drain?(&json)
        }
        json.endArray()
        let navigation = state.navigation
        json.key("onboarding")
        json.beginObject()
        json.key("launched")
        json.bool(navigation.launched)
        json.key("stack")
        json.beginArray()
        for screen in navigation.stack { json.string(screen.rawValue) }
        json.endArray()
        json.key("modal")
        navigation.isModalPresented ? json.string("modal") : json.null()
        json.key("hasOnboarded")
        json.bool(navigation.hasOnboarded)
        json.key("tab")
        json.int(navigation.tab)
        json.endObject()
    }

    private static func writeDiscount(_ discount: Discount?, into json: inout JSONWriter) {
        guard let discount else {
            json.null()
            return
        }
        json.beginObject()
        json.key("discountId")
        json.string(discount.id)
        // A percent discount is written as before fixed amounts, so old states still compare.
        if discount.amountOff > 0 {
            json.key("amountOff")
            json.int(discount.amountOff)
        } else {
            json.key("percent")
            json.int(discount.percent)
        }
        json.endObject()
    }
}
