public import FlowDomain
public import FlowLogBasics

/// The JSON face of the domain's state (SPEC §5): part of the binding, beside the state's bytes
/// (`LogDomain`), as the one place of the core that knows what a state holds.
extension FlowJSON {
    /// Members the state's JSON face gained after its first release, with the values that mean what
    /// a state written before them meant: an older build's state, lacking the member, agrees with
    /// one that holds any of these (a cart with no currency, or in USD, the only one there was).
    public static let stateMembersAddedLater: [String: [JSONValue]] = [
        "currency": [.null, .string(Money.currencyOfEarlierCarts)]
    ]

    /// A stream's projected state, every key always present (SPEC §5).
    public static func writeState(_ state: FlowState, stream: String, version: Int, into json: inout JSONWriter) {
        writeState(state, stream: stream, version: version, into: &json, drain: nil)
    }

    /// A stream's state and a newline, written to `output` in pieces of about 64 KB: the state of a
    /// stream with tens of thousands of orders is megabytes, and one buffer for all of it cost more
    /// in fresh pages than writing it did.
    public static func writeState(_ state: FlowState, stream: String, version: Int, to output: any OutputSink) throws {
        var json = JSONWriter(capacity: drainBytes + 4096)
        var failure: (any Error)?
        writeState(state, stream: stream, version: version, into: &json) { json in
            if failure == nil {
                do { try output.write(json.bytes) } catch { failure = error }
            }
            json.bytes.removeAll(keepingCapacity: true)
        }
        if let failure { throw failure }
        json.newline()
        try output.write(json.bytes)
    }

    /// How many bytes of orders a `drain` is handed at a time.
    private static let drainBytes = 1 << 16

    private static func writeState(
        _ state: FlowState, stream: String, version: Int, into json: inout JSONWriter,
        drain: ((inout JSONWriter) -> Void)?
    ) {
        json.beginObject()
        json.key("stream")
        json.string(stream)
        json.key("version")
        json.int(version)
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
            if let drain, json.bytes.count >= drainBytes { drain(&json) }
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
        json.endObject()
    }

    public static func state(_ state: FlowState, stream: String, version: Int) -> String {
        var json = JSONWriter(capacity: 512)
        writeState(state, stream: stream, version: version, into: &json)
        return json.text
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
