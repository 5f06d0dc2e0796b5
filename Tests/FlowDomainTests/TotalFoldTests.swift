import Deciding
import FlowDomain
import Testing

/// Every event that decodes folds without trapping (SPEC §6, "What a recorded event may hold"):
/// the folds of recorded events are total, whatever an older build or a device recorded.
@Suite("Folds are total")
struct TotalFoldTests {
    private func fold(_ events: [AppEvent]) -> FlowState {
        events.reduce(into: FlowState()) { FlowDecider.evolve(&$0, $1) }
    }

    private func added(_ productId: String, price: Int, quantity: Int) -> AppEvent {
        .cart(.productAdded(.init(productId: productId, name: productId, unitPrice: price, quantity: quantity)))
    }

    @Test func aFullCartAtTheLargestPriceSumsExactly() {
        let largestPrice = FieldChecks.unitPriceRange.upperBound
        let events = (0..<Cart.maximumLines).map { added("p\($0)", price: largestPrice, quantity: Cart.maximumLineQuantity) }
        let state = fold(events)
        #expect(state.cart.subtotal == FieldChecks.largestCartTotal)
        #expect(state.cart.total == FieldChecks.largestCartTotal)
        #expect(state.cart.itemCount == Cart.maximumLines * Cart.maximumLineQuantity)
    }

    @Test func discountsAtTheirRecordedLimitsFoldWithoutTrapping() {
        let price = FieldType.cents.recordedRange!.upperBound
        let percent = FieldType.percent.recordedRange!.upperBound
        var events = (0..<Cart.maximumLines).map { added("p\($0)", price: price, quantity: Cart.maximumLineQuantity) }
        events.append(.cart(.discountApplied(.init(discountId: "L", percent: percent, productId: "p0"))))
        events.append(.cart(.discountApplied(.init(discountId: "C", percent: percent, productId: nil))))
        let state = fold(events)
        let regular = 9_990_000_000_000 * 999
        #expect(state.cart.lines[1].regularAmount == regular)
        // 1,000% of it is past 64 bits: the rounding's product saturates, and nothing traps.
        #expect(Money.percentage(percent, of: regular) == Int.max / 100)
        #expect(state.cart.lines[0].discountedAmount == regular - Int.max / 100)
        #expect(state.cart.subtotal == 99 * regular + (regular - Int.max / 100))
        #expect(state.cart.total == state.cart.subtotal - Int.max / 100)
        #expect(FlowDecider.invariant(named: "discounts-valid")?.violation(in: state) != nil)
        #expect(FlowDecider.invariant(named: "totals-non-negative")?.violation(in: state) != nil)
    }

    @Test func millionsOfAdditionsToOneLineSaturateAndBreakTheLineInvariant() {
        var state = FlowState()
        let add = added("p", price: FieldChecks.unitPriceRange.upperBound, quantity: Cart.maximumLineQuantity)
        for _ in 0..<100_000 { FlowDecider.evolve(&state, add) }
        #expect(state.cart.lines[0].quantity == 99_900_000)
        #expect(state.cart.lines[0].regularAmount == 99_900_000 * FieldChecks.unitPriceRange.upperBound)
        state.cart.lines[0].quantity = Int.max - 10
        FlowDecider.evolve(&state, add)
        #expect(state.cart.lines[0].quantity == Int.max)
        #expect(state.cart.lines[0].regularAmount == Int.max)
        #expect(FlowDecider.invariant(named: "line-quantities")?.violation(in: state) != nil)
    }

    @Test func aThousandOrdersFold() {
        var events: [AppEvent] = []
        for order in 0..<1_000 {
            events.append(added("p", price: FieldChecks.unitPriceRange.upperBound, quantity: Cart.maximumLineQuantity))
            events.append(.cart(.checkoutStarted(.init(total: FieldChecks.largestCartTotal, itemCount: 99_900))))
            events.append(.cart(.orderPlaced(.init(orderId: "o\(order)", total: FieldChecks.largestCartTotal, itemCount: 99_900))))
        }
        let state = fold(events)
        #expect(state.orders.count == 1_000)
        #expect(state.cart.lines.isEmpty)
    }

    @Test(arguments: [(Int.max, 1), (Int.min, -1), (Int.max, Int.max), (Int.min, Int.max), (-3, 4)])
    func sumsProductsAndDifferencesNeverTrap(a: Int, b: Int) {
        let sum = Money.sum(a, b)
        let difference = Money.difference(a, b)
        let product = Money.product(a, b)
        #expect(sum == (a.addingReportingOverflow(b).overflow ? (b > 0 ? Int.max : Int.min) : a + b))
        #expect(difference == (a.subtractingReportingOverflow(b).overflow ? (b < 0 ? Int.max : Int.min) : a - b))
        #expect(product == (a.multipliedReportingOverflow(by: b).overflow ? ((a < 0) == (b < 0) ? Int.max : Int.min) : a * b))
    }

    @Test func recordedRangesHoldWhatTheRulesMakeAndWhatOlderBuildsRecorded() {
        #expect(FieldType.cents.recordedRange!.contains(FieldChecks.largestCartTotal))
        #expect(FieldType.percent.recordedRange!.contains(150))  // Fixtures/bugs/coupon-over-100
        #expect(FieldType.percent.recordedRange!.contains(0))  // a fixed amount's percent
        #expect(FieldType.amount.recordedRange!.contains(0))  // a percent's amountOff
        #expect(!FieldType.quantity.recordedRange!.contains(0))
        #expect(FieldType.cents.recordedRange!.contains(-FieldChecks.largestCartTotal))
        #expect(!FieldType.cents.recordedRange!.contains(-FieldChecks.largestCartTotal - 1))
        #expect(FieldType.integer.recordedRange! == 0...FieldType.largestExactInteger)
        #expect(FieldType.cents.recordedRange! == -FieldChecks.largestCartTotal...FieldChecks.largestCartTotal)
        #expect(FieldType.quantity.recordedRange! == FieldChecks.quantityRange)
        #expect(FieldType.amount.recordedRange! == 0...FieldChecks.amountOffRange.upperBound)
        #expect(FieldType.text.recordedRange == nil)
    }
}
