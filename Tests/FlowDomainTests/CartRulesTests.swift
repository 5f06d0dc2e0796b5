import FlowLogTesting
import Testing

@testable import FlowDomain

private func added(_ productId: String, price: Int = 1250, quantity: Int = 1, name: String? = nil) -> AppEvent {
    .cart(.productAdded(.init(productId: productId, name: name ?? productId, unitPrice: price, quantity: quantity)))
}

private func add(_ productId: String, price: Int = 1250, quantity: Int = 1) -> AppCommand {
    .cart(.addProduct(.init(productId: productId, name: nil, unitPrice: price, quantity: quantity)))
}

private let checkoutStarted = AppEvent.cart(.checkoutStarted(.init(total: 1250, itemCount: 1)))

@Suite("cart.addProduct")
struct AddProductTests {
    @Test func addsANewLineNamedAfterTheProductWhenNoNameIsGiven() {
        #expect(DeciderScenario.given().when(add("p1", quantity: 2)) == .events([added("p1", quantity: 2)]))
    }

    @Test func addsToTheQuantityOfAnExistingLineAndKeepsLineOrder() {
        let state = DeciderScenario.given(added("p1"), added("p2")).stateAfter(add("p1", quantity: 3))!
        #expect(state.cart.lines.map(\.productId) == ["p1", "p2"])
        #expect(state.cart.lines[0].quantity == 4)
    }

    @Test func refusesAnotherPriceForAProductInTheCart() {
        #expect(DeciderScenario.given(added("p1", price: 1250)).when(add("p1", price: 1300)) == .rejected(.priceMismatch))
    }

    @Test func refusesALineQuantityOver999ButAllowsExactly999() {
        let scenario = DeciderScenario.given(added("p1", quantity: 990))
        #expect(scenario.when(add("p1", quantity: 10)) == .rejected(.quantityLimit))
        #expect(scenario.when(add("p1", quantity: 9)) == .events([added("p1", quantity: 9)]))
    }

    @Test func refusesTheHundredAndFirstLineButAddsToAnExistingOneInAFullCart() {
        let scenario = DeciderScenario.given(events: (1...100).map { added("p\($0)") })
        #expect(scenario.when(add("p101")) == .rejected(.cartFull))
        #expect(scenario.when(add("p7")) == .events([added("p7")]))
    }

    @Test func refusesChangesWhileCheckingOut() {
        #expect(DeciderScenario.given(added("p1"), checkoutStarted).when(add("p2")) == .rejected(.cartNotOpen))
    }

    @Test func checksOpenBeforePrice() {
        #expect(DeciderScenario.given(added("p1"), checkoutStarted).when(add("p1", price: 1)) == .rejected(.cartNotOpen))
    }
}

@Suite("cart.removeProduct")
struct RemoveProductTests {
    @Test func removesPartOfALine() {
        let scenario = DeciderScenario.given(added("p1", quantity: 5))
        #expect(
            scenario.when(.cart(.removeProduct(.init(productId: "p1", quantity: 2))))
                == .events([.cart(.productRemoved(.init(productId: "p1", quantity: 2)))]))
        #expect(scenario.stateAfter(.cart(.removeProduct(.init(productId: "p1", quantity: 2))))!.cart.lines[0].quantity == 3)
    }

    @Test func removesTheWholeLineWhenNoQuantityIsGivenRecordingWhatWasRemoved() {
        let scenario = DeciderScenario.given(added("p1", quantity: 5))
        #expect(
            scenario.when(.cart(.removeProduct(.init(productId: "p1", quantity: nil))))
                == .events([.cart(.productRemoved(.init(productId: "p1", quantity: 5)))]))
    }

    @Test func aLineThatReachesZeroGoesWithItsProductDiscount() {
        let state = DeciderScenario.given(
            added("p1", quantity: 2), .cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: "p1")))
        ).stateAfter(.cart(.removeProduct(.init(productId: "p1", quantity: 2))))!
        #expect(state.cart.lines.isEmpty)
        #expect(!state.cart.isApplied(discountId: "D1"))
        // The discount id is free again once its line is gone.
        let readded = DeciderScenario(state: state).stateAfter(add("p1"))!
        #expect(readded.cart.lines[0].discount == nil)
        #expect(
            DeciderScenario(state: readded).when(.cart(.applyDiscount(.init(discountId: "D1", percent: 5, productId: nil))))
                == .events([.cart(.discountApplied(.init(discountId: "D1", percent: 5, productId: nil)))]))
    }

    @Test func refusesAProductThatIsNotInTheCart() {
        #expect(DeciderScenario.given().when(.cart(.removeProduct(.init(productId: "p1", quantity: nil)))) == .rejected(.productNotInCart))
    }

    @Test func refusesMoreThanTheLineHolds() {
        #expect(
            DeciderScenario.given(added("p1", quantity: 2)).when(.cart(.removeProduct(.init(productId: "p1", quantity: 3))))
                == .rejected(.invalidQuantity))
    }

    @Test func refusesWhileCheckingOut() {
        #expect(
            DeciderScenario.given(added("p1"), checkoutStarted).when(.cart(.removeProduct(.init(productId: "p1", quantity: nil))))
                == .rejected(.cartNotOpen))
    }
}

@Suite("cart.applyDiscount and cart.removeDiscount")
struct DiscountTests {
    @Test func aProductDiscountNeedsTheProductInTheCart() {
        #expect(
            DeciderScenario.given().when(.cart(.applyDiscount(.init(discountId: "D1", percent: 10, productId: "p1")))) == .rejected(.productNotInCart)
        )
    }

    @Test func aCartDiscountNeedsNoProducts() {
        #expect(
            DeciderScenario.given().when(.cart(.applyDiscount(.init(discountId: "D1", percent: 10, productId: nil))))
                == .events([.cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: nil)))]))
    }

    @Test func anAppliedIdIsRefusedWhereverItIsApplied() {
        let scenario = DeciderScenario.given(added("p1"), added("p2"), .cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: "p1"))))
        #expect(scenario.when(.cart(.applyDiscount(.init(discountId: "D1", percent: 5, productId: "p2")))) == .rejected(.duplicateDiscount))
        #expect(scenario.when(.cart(.applyDiscount(.init(discountId: "D1", percent: 5, productId: nil)))) == .rejected(.duplicateDiscount))
    }

    @Test func duplicateIsCheckedBeforeTheProduct() {
        let scenario = DeciderScenario.given(.cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: nil))))
        #expect(scenario.when(.cart(.applyDiscount(.init(discountId: "D1", percent: 5, productId: "nope")))) == .rejected(.duplicateDiscount))
    }

    @Test func aNewProductDiscountReplacesTheOldOneAndFreesItsId() {
        let state = DeciderScenario.given(added("p1"), .cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: "p1"))))
            .stateAfter(.cart(.applyDiscount(.init(discountId: "D2", percent: 20, productId: "p1"))))!
        #expect(state.cart.lines[0].discount == Discount(id: "D2", percent: 20))
        #expect(!state.cart.isApplied(discountId: "D1"))
    }

    @Test func aNewCartDiscountReplacesTheOldOne() {
        let state = DeciderScenario.given(.cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: nil))))
            .stateAfter(.cart(.applyDiscount(.init(discountId: "D2", percent: 20, productId: nil))))!
        #expect(state.cart.cartDiscount == Discount(id: "D2", percent: 20))
    }

    @Test func removesAProductOrCartDiscount() {
        let scenario = DeciderScenario.given(
            added("p1"), .cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: "p1"))),
            .cart(.discountApplied(.init(discountId: "D2", percent: 10, productId: nil))))
        #expect(scenario.stateAfter(.cart(.removeDiscount(.init(discountId: "D1"))))!.cart.lines[0].discount == nil)
        #expect(scenario.stateAfter(.cart(.removeDiscount(.init(discountId: "D2"))))!.cart.cartDiscount == nil)
        #expect(scenario.when(.cart(.removeDiscount(.init(discountId: "D3")))) == .rejected(.discountNotApplied))
    }

    @Test func discountsCannotChangeWhileCheckingOut() {
        let scenario = DeciderScenario.given(
            added("p1"), .cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: nil))), checkoutStarted)
        #expect(scenario.when(.cart(.applyDiscount(.init(discountId: "D2", percent: 5, productId: nil)))) == .rejected(.cartNotOpen))
        #expect(scenario.when(.cart(.removeDiscount(.init(discountId: "D1")))) == .rejected(.cartNotOpen))
    }
}

@Suite("checkout and payment")
struct CheckoutTests {
    @Test func anEmptyCartCannotCheckOut() {
        #expect(DeciderScenario.given().when(.cart(.checkout)) == .rejected(.emptyCart))
    }

    @Test func checkoutRecordsTheTotalAndItemCount() {
        let scenario = DeciderScenario.given(
            added("p1", price: 1000, quantity: 2), added("p2", price: 500, quantity: 1),
            .cart(.discountApplied(.init(discountId: "D", percent: 10, productId: nil))))
        #expect(scenario.when(.cart(.checkout)) == .events([.cart(.checkoutStarted(.init(total: 2250, itemCount: 3)))]))
        #expect(scenario.stateAfter(.cart(.checkout))!.cart.status == .checkingOut)
    }

    @Test func checkingOutTwiceIsRefused() {
        #expect(DeciderScenario.given(added("p1"), checkoutStarted).when(.cart(.checkout)) == .rejected(.cartNotOpen))
    }

    @Test func paymentsNeedACheckoutInProgress() {
        #expect(DeciderScenario.given(added("p1")).when(.payment(.succeeded(.init(orderId: "o1")))) == .rejected(.noCheckoutInProgress))
        #expect(DeciderScenario.given(added("p1")).when(.payment(.failed(.init(reason: "no")))) == .rejected(.noCheckoutInProgress))
    }

    @Test func aSuccessfulPaymentPlacesTheOrderAndEmptiesTheCart() {
        let scenario = DeciderScenario.given(
            added("p1", price: 1250, quantity: 2), .cart(.discountApplied(.init(discountId: "D", percent: 10, productId: "p1"))),
            .cart(.discountApplied(.init(discountId: "C", percent: 50, productId: nil))),
            .cart(.checkoutStarted(.init(total: 1125, itemCount: 2))))
        #expect(
            scenario.when(.payment(.succeeded(.init(orderId: "o1"))))
                == .events([.cart(.orderPlaced(.init(orderId: "o1", total: 1125, itemCount: 2)))]))
        let state = scenario.stateAfter(.payment(.succeeded(.init(orderId: "o1"))))!
        #expect(state.orders.orders == [Order(orderId: "o1", total: 1125, itemCount: 2)])
        #expect(state.cart == Cart())
    }

    @Test func anOrderIdIsUsedOncePerStream() {
        let scenario = DeciderScenario.given(
            added("p1"), checkoutStarted, .cart(.orderPlaced(.init(orderId: "o1", total: 1250, itemCount: 1))),
            added("p1"), checkoutStarted)
        #expect(scenario.when(.payment(.succeeded(.init(orderId: "o1")))) == .rejected(.duplicateOrder))
        #expect(
            scenario.when(.payment(.succeeded(.init(orderId: "o2"))))
                == .events([.cart(.orderPlaced(.init(orderId: "o2", total: 1250, itemCount: 1)))]))
    }

    @Test(arguments: [false, true])
    func anOrderHistoryLoadedFromStoredOrdersRefusesTheirIdsWhetherOrNotItIsIndexed(indexed: Bool) {
        var state = FlowDecider.replay([added("p1"), checkoutStarted])
        state.orders = OrderHistory(orders: [Order(orderId: "o1", total: 1250, itemCount: 1), Order(orderId: "o2", total: 990, itemCount: 1)])
        if indexed { state.orders.indexIds() }
        let loaded = DeciderScenario(state: state)
        #expect(loaded.when(.payment(.succeeded(.init(orderId: "o2")))) == .rejected(.duplicateOrder))

        var afterAnotherOrder = loaded.stateAfter(.payment(.succeeded(.init(orderId: "o3"))))!
        for event in [added("p1"), checkoutStarted] { FlowDecider.evolve(&afterAnotherOrder, event) }
        let reopened = DeciderScenario(state: afterAnotherOrder)
        for used in ["o1", "o2", "o3"] {
            #expect(reopened.when(.payment(.succeeded(.init(orderId: used)))) == .rejected(.duplicateOrder), "order id \(used)")
        }
        #expect(reopened.state.orders.orders.map(\.orderId) == ["o1", "o2", "o3"])
        #expect(
            reopened.when(.payment(.succeeded(.init(orderId: "o4"))))
                == .events([.cart(.orderPlaced(.init(orderId: "o4", total: 1250, itemCount: 1)))]))
    }

    @Test func aFailedPaymentReopensTheCartKeepingLinesAndDiscounts() {
        let scenario = DeciderScenario.given(
            added("p1"), .cart(.discountApplied(.init(discountId: "D", percent: 10, productId: nil))), checkoutStarted)
        let state = scenario.stateAfter(.payment(.failed(.init(reason: "card declined"))))!
        #expect(state.cart.status == .open)
        #expect(state.cart.lines.count == 1)
        #expect(state.cart.cartDiscount?.id == "D")
    }
}

private func changeQuantity(_ productId: String, to quantity: Int) -> AppCommand {
    .cart(.changeQuantity(.init(productId: productId, quantity: quantity)))
}

private func quantityChanged(_ productId: String, to quantity: Int) -> AppEvent {
    .cart(.quantityChanged(.init(productId: productId, quantity: quantity)))
}

@Suite("cart.changeQuantity")
struct ChangeQuantityTests {
    @Test func setsTheLinesQuantityUpOrDownKeepingItsPriceDiscountAndPlace() {
        let discount = AppEvent.cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: "p1")))
        let scenario = DeciderScenario.given(added("p1", quantity: 5), added("p2"), discount)
        #expect(scenario.when(changeQuantity("p1", to: 2)) == .events([quantityChanged("p1", to: 2)]))
        let state = scenario.stateAfter(changeQuantity("p1", to: 999))!
        #expect(state.cart.lines.map(\.productId) == ["p1", "p2"])
        #expect(state.cart.lines[0].quantity == 999)
        #expect(state.cart.lines[0].unitPrice == 1250)
        #expect(state.cart.lines[0].discount?.id == "D1")
    }

    @Test func refusesAProductThatIsNotInTheCart() {
        #expect(DeciderScenario.given(added("p1")).when(changeQuantity("p2", to: 3)) == .rejected(.productNotInCart))
    }

    @Test func refusesAQuantityOutside1Through999() {
        let scenario = DeciderScenario.given(added("p1"))
        #expect(scenario.when(changeQuantity("p1", to: 0)) == .rejected(.invalidQuantity))
        #expect(scenario.when(changeQuantity("p1", to: 1_000)) == .rejected(.invalidQuantity))
        #expect(scenario.when(changeQuantity("p1", to: 1)) == .events([quantityChanged("p1", to: 1)]))
    }

    @Test func refusesChangesWhileCheckingOut() {
        #expect(DeciderScenario.given(added("p1"), checkoutStarted).when(changeQuantity("p1", to: 2)) == .rejected(.cartNotOpen))
    }
}

/// A history that dropped its older orders for a writer's cache still rules out new order ids.
@Suite("Dropped order ids")
struct DroppedOrderIdsTests {
    private static func history(_ count: Int) -> OrderHistory {
        OrderHistory(orders: (0..<count).map { Order(orderId: "o\($0)", total: 100, itemCount: 1) })
    }

    @Test func rememberedIdsRuleOutNewOnesAndKeepOldOnes() {
        var history = Self.history(5)
        history.keepOnlyLatest(rememberingIds: true)
        #expect(history.count == 5 && history.orders.map(\.orderId) == ["o4"])
        for old in ["o0", "o1", "o2", "o3"] { #expect(history.mayHaveDropped(orderId: old), "\(old)") }
        #expect(!history.mayHaveDropped(orderId: "o4") && !history.mayHaveDropped(orderId: "o5"))
        #expect(
            FlowDecider.needsKeptRows(
                .payment(.succeeded(.init(orderId: "o1"))),
                state: {
                    var s = FlowState()
                    s.orders = history
                    return s
                }()))
        #expect(
            !FlowDecider.needsKeptRows(
                .payment(.succeeded(.init(orderId: "new"))),
                state: {
                    var s = FlowState()
                    s.orders = history
                    return s
                }()))
        #expect(!FlowDecider.needsKeptRows(.cart(.checkout), state: FlowState()))
    }

    /// Short lists of hashes are scanned, long ones sorted and bisected: either way every dropped
    /// id is remembered and a new one ruled out, over drops that cross from one to the other.
    @Test(arguments: [5, 255, 256, 300, 2_000])
    func everyDroppedIdIsRememberedHoweverManyThereAre(count: Int) {
        var history = OrderHistory()
        var next = 0
        // Dropped in rounds, as a cached state is slimmed again after more orders.
        for round in [count / 2, count - count / 2] {
            for _ in 0..<round {
                history.append(Order(orderId: "order-\(next)", total: 100, itemCount: 1))
                next += 1
            }
            history.keepOnlyLatest(rememberingIds: true)
        }
        #expect(history.count == count)
        for old in 0..<(count - 1) { #expect(history.mayHaveDropped(orderId: "order-\(old)"), "order-\(old)") }
        #expect((count..<(count + 200)).allSatisfy { !history.mayHaveDropped(orderId: "order-\($0)") })
    }

    /// `mayNeedKeptRows` may only ever spare the question `needsKeptRows` would answer no to:
    /// every kind of command, against a state that forgot its ids (which needs rows for any id).
    @Test func onlyACommandThatMayNeedRowsEverNeedsThem() {
        var rng = SplitMix64(seed: 3)
        let commands = RandomCommands()
        var history = Self.history(20)
        history.keepOnlyLatest(rememberingIds: false)
        var state = FlowState()
        state.orders = history
        var seen = Set<AppCommand.Kind>()
        for _ in 0..<2_000 {
            let command = commands.command(using: &rng)
            seen.insert(command.kind)
            if FlowDecider.needsKeptRows(command, state: state) { #expect(FlowDecider.mayNeedKeptRows(command), "\(command.typeName)") }
        }
        #expect(seen.count == CommandKinds.all.count)
        #expect(FlowDecider.mayNeedKeptRows(.payment(.succeeded(.init(orderId: "o1")))))
        #expect(!FlowDecider.mayNeedKeptRows(.cart(.checkout)))
    }

    /// Storage restores a slim history through the `Decider` hooks, hashing stored ids as it reads
    /// them: the state it makes answers as the cache's own slimmed state does.
    @Test func aSlimHistoryRestoredThroughTheDeciderAnswersAsOneSlimmedInMemory() {
        var slimmed = FlowState()
        slimmed.orders = Self.history(5)
        slimmed.orders.keepOnlyLatest(rememberingIds: true)
        var restored = FlowState()
        let hashes = ["o0", "o1", "o2", "o3"].map { id in
            Array(id.utf8).withUnsafeBytes { FlowDecider.keptRowKeyHash(utf8: $0) }
        }
        FlowDecider.restoreSlimKeptRows(latest: Self.history(5).orders[4], droppedKeyHashes: hashes, into: &restored)
        #expect(FlowDecider.keptRowCount(of: restored) == 5)
        #expect(FlowDecider.keptRows(of: restored) == FlowDecider.keptRows(of: slimmed))
        for id in ["o0", "o3", "o4", "new"] {
            let payment = AppCommand.payment(.succeeded(.init(orderId: id)))
            #expect(FlowDecider.needsKeptRows(payment, state: restored) == FlowDecider.needsKeptRows(payment, state: slimmed), "\(id)")
        }
        #expect(FlowDecider.needsKeptRows(.payment(.succeeded(.init(orderId: "o1"))), state: restored))
        #expect(!FlowDecider.needsKeptRows(.payment(.succeeded(.init(orderId: "new"))), state: restored))
    }

    @Test func aDropThatForgotItsIdsRulesOutNothing() {
        var history = Self.history(5)
        history.keepOnlyLatest()
        #expect(history.mayHaveDropped(orderId: "new"))
        #expect(!Self.history(3).mayHaveDropped(orderId: "o1"))
    }
}
