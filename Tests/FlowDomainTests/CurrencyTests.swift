import FlowDomain
import FlowLogTesting
import Testing

private func add(_ productId: String, price: Int = 1000, currency: String? = nil) -> AppCommand {
    .cart(.addProduct(.init(productId: productId, name: nil, unitPrice: price, quantity: 1, currency: currency)))
}

private func added(_ productId: String, price: Int = 1000, currency: String = "USD") -> AppEvent {
    .cart(.productAdded(.init(productId: productId, name: productId, unitPrice: price, quantity: 1, currency: currency)))
}

/// `cart.productAdded` version 2: multi-currency carts (SPEC §3).
@Suite("cart.addProduct with a currency")
struct CurrencyTests {
    @Test func aProductWithoutACurrencyTakesTheLogsDefault() throws {
        let euro = DecisionContext(defaultCurrency: "EUR")
        #expect(try FlowDecider.decide(add("p1"), state: FlowState(), context: euro) == [added("p1", currency: "EUR")])
        #expect(try FlowDecider.decide(add("p1", currency: "GBP"), state: FlowState(), context: euro) == [added("p1", currency: "GBP")])
        #expect(DeciderScenario.given().when(add("p1")) == .events([added("p1")]), "USD where the log names no other")
    }

    @Test func aCartHoldsOneCurrencyCheckedRightAfterCartNotOpen() {
        let scenario = DeciderScenario.given(added("p1", currency: "EUR"))
        #expect(scenario.when(add("p2", currency: "USD")) == .rejected(.currencyMismatch))
        // Before priceMismatch: the same product at another price and in another currency.
        #expect(scenario.when(add("p1", price: 5, currency: "USD")) == .rejected(.currencyMismatch))
        #expect(scenario.when(add("p2", currency: "EUR")) == .events([added("p2", currency: "EUR")]))
        let checkingOut = DeciderScenario.given(added("p1", currency: "EUR"), .cart(.checkoutStarted(.init(total: 1000, itemCount: 1))))
        #expect(checkingOut.when(add("p2", currency: "USD")) == .rejected(.cartNotOpen))
        #expect(DeciderScenario.given().when(add("p1", currency: "eur")) == .rejected(.invalidCurrency))
        #expect(DeciderScenario.given().when(add("p1", currency: "EURO")) == .rejected(.invalidCurrency))
    }

    @Test func anOrderKeepsItsCurrencyAndTheNextCartTakesTheNextProducts() {
        let state = DeciderScenario.given(
            added("p1", currency: "EUR"), .cart(.checkoutStarted(.init(total: 1000, itemCount: 1))),
            .cart(.orderPlaced(.init(orderId: "o1", total: 1000, itemCount: 1))), added("p2", currency: "JPY")
        ).state
        #expect(state.orders.orders.map(\.currency) == ["EUR"])
        #expect(state.cart.currency == "JPY")
        let emptied = DeciderScenario.given(added("p1", currency: "EUR"), .cart(.productRemoved(.init(productId: "p1", quantity: 1)))).state
        #expect(emptied.cart.currency == nil, "a cart without a line has no currency")
    }

    @Test func versionOneIsUSDAndAProductInUSDIsStoredAsVersionOne() {
        let v1 = CartEvent.ProductAdded.V1(productId: "p", name: "p", unitPrice: 1, quantity: 1)
        #expect(CartEvent.ProductAdded.upcast(v1).currency == "USD")
        #expect(EventKinds.storedVersion(of: added("p")) == 1)
        #expect(EventKinds.storedVersion(of: added("p", currency: "EUR")) == 2)
        #expect(EventKinds.info(typeName: "cart.productAdded")!.newestVersion(inLogSchema: 1) == 1)
    }
}
