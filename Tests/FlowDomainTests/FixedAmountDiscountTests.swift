import FlowDomain
import FlowLogTesting
import Testing

private func added(_ productId: String, price: Int, quantity: Int = 1) -> AppEvent {
    .cart(.productAdded(.init(productId: productId, name: productId, unitPrice: price, quantity: quantity)))
}

private func discount(_ id: String, percent: Int? = nil, amountOff: Int? = nil, product: String? = nil) -> AppCommand {
    .cart(.applyDiscount(.init(discountId: id, percent: percent, amountOff: amountOff, productId: product)))
}

private func applied(_ id: String, percent: Int = 0, amountOff: Int = 0, product: String? = nil) -> AppEvent {
    .cart(.discountApplied(.init(discountId: id, percent: percent, amountOff: amountOff, productId: product)))
}

/// `cart.discountApplied` version 2: a fixed amount off, beside the percent of version 1 (SPEC §3's pricing).
@Suite("cart.applyDiscount with a fixed amount")
struct FixedAmountDiscountTests {
    @Test func anAmountOffALineOrTheCartIsRecordedWithPercentZero() {
        let scenario = DeciderScenario.given(added("p1", price: 1000))
        #expect(scenario.when(discount("D5", amountOff: 500, product: "p1")) == .events([applied("D5", amountOff: 500, product: "p1")]))
        #expect(scenario.when(discount("C5", amountOff: 500)) == .events([applied("C5", amountOff: 500)]))
    }

    @Test func bothOrNeitherIsMalformedAndAnAmountOutOfRangeIsInvalidAmount() {
        let scenario = DeciderScenario.given(added("p1", price: 1000))
        #expect(scenario.when(discount("D", percent: 10, amountOff: 100)) == .rejected(.malformedCommand))
        #expect(scenario.when(discount("D")) == .rejected(.malformedCommand))
        #expect(scenario.when(discount("D", amountOff: 0)) == .rejected(.invalidAmount))
        #expect(scenario.when(discount("D", amountOff: 100_000_001)) == .rejected(.invalidAmount))
        #expect(scenario.when(discount("D", amountOff: 100_000_000)) == .events([applied("D", amountOff: 100_000_000)]))
        // A field check comes first: a bad percent beside an amount is invalidPercent, not malformedCommand.
        #expect(scenario.when(discount("D", percent: 0, amountOff: 100)) == .rejected(.invalidPercent))
    }

    @Test func anAmountNeverTakesALineOrTheCartBelowZero() {
        let state = DeciderScenario.given(
            added("p1", price: 300), added("p2", price: 1000), applied("BIG", amountOff: 500, product: "p1"),
            applied("ALL", amountOff: 5_000)
        ).state
        #expect(state.cart.lines[0].discountedAmount == 0)
        #expect(state.cart.subtotal == 1000)
        #expect(state.cart.total == 0)
    }

    @Test func productDiscountsComeFirstThenTheCartsOnTheSubtotal() {
        // A percent on a line, an amount off the cart.
        var state = DeciderScenario.given(added("p1", price: 999), applied("P10", percent: 10, product: "p1"), applied("C1", amountOff: 100)).state
        #expect(state.cart.lines[0].discountedAmount == 899)  // 999 − round(99.9)
        #expect(state.cart.total == 799)
        // An amount off a line, a percent on the cart: the percent of the reduced subtotal, rounded half-up.
        state = DeciderScenario.given(added("p1", price: 1000), applied("L", amountOff: 5, product: "p1"), applied("C", percent: 10)).state
        #expect(state.cart.subtotal == 995)
        #expect(state.cart.total == 995 - 100)  // round(99.5) = 100
    }

    @Test func aVersionOneEventUpcastsToThePercentItWasAndDowncastsBack() {
        let v1 = CartEvent.DiscountApplied.V1(discountId: "D1", percent: 15, productId: nil)
        let current = CartEvent.DiscountApplied.upcast(v1)
        #expect(current == CartEvent.DiscountApplied(discountId: "D1", percent: 15, productId: nil))
        #expect(current.downcast() == v1)
        #expect(CartEvent.DiscountApplied(discountId: "D1", percent: 0, amountOff: 5, productId: nil).downcast() == nil)
        #expect(EventKinds.storedVersion(of: .cart(.discountApplied(current))) == 1)
        #expect(EventKinds.storedVersion(of: applied("D", amountOff: 5)) == 2)
    }

    @Test func theLabelAndTheInvariantKnowBothKinds() {
        #expect(Discount(id: "A", percent: 0, amountOff: 250).label == "-2.50")
        #expect(Discount(id: "P", percent: 10).label == "-10%")
        #expect(Discount(id: "A", percent: 0, amountOff: 250).problem == nil)
        #expect(Discount(id: "X", percent: 10, amountOff: 250).problem != nil)
    }
}
