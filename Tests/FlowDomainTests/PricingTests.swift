import FlowDomain
import Testing

@Suite("Pricing (SPEC §3: integer cents, half-up rounding)")
struct PricingTests {
    @Test(arguments: [
        (amount: 0, percent: 10, expected: 0),
        (amount: 5, percent: 10, expected: 1),  // 0.5 rounds up
        (amount: 4, percent: 10, expected: 0),  // 0.4 rounds down
        (amount: 15, percent: 10, expected: 2),  // 1.5 rounds up
        (amount: 1, percent: 50, expected: 1),  // 0.5 rounds up
        (amount: 1, percent: 49, expected: 0),
        (amount: 999, percent: 100, expected: 999),
        (amount: 1999, percent: 33, expected: 660),  // 659.67
        (amount: 100_000_000_000, percent: 1, expected: 1_000_000_000),
    ])
    func percentageRoundsHalfUp(amount: Int, percent: Int, expected: Int) {
        #expect(Money.percentage(percent, of: amount) == expected)
    }

    @Test func lineAmountsApplyTheProductDiscount() {
        let line = CartLine(productId: "p", name: "p", unitPrice: 333, quantity: 3, discount: Discount(id: "D", percent: 15))
        #expect(line.regularAmount == 999)
        #expect(line.discountedAmount == 999 - 150)  // 149.85 rounds to 150
    }

    @Test func totalRoundsTheCartDiscountOnTheSubtotal() {
        var cart = Cart()
        cart.lines = [
            CartLine(productId: "a", name: "a", unitPrice: 1, quantity: 1, discount: Discount(id: "D", percent: 50)),  // 1 - 1 = 0
            CartLine(productId: "b", name: "b", unitPrice: 3, quantity: 1, discount: Discount(id: "E", percent: 50)),  // 3 - 2 = 1
        ]
        cart.cartDiscount = Discount(id: "C", percent: 50)
        #expect(cart.subtotal == 1)
        #expect(cart.total == 0)  // 1 - round(0.5) = 0
        #expect(cart.itemCount == 2)
    }

    @Test func aHundredPercentDiscountMakesAFreeCartNeverANegativeOne() {
        var cart = Cart()
        cart.lines = [CartLine(productId: "a", name: "a", unitPrice: 100_000_000, quantity: 999, discount: Discount(id: "D", percent: 100))]
        cart.cartDiscount = Discount(id: "C", percent: 100)
        #expect(cart.subtotal == 0)
        #expect(cart.total == 0)
    }

    @Test func theLargestCartFitsInIntegers() {
        var cart = Cart()
        cart.lines = (1...100).map { CartLine(productId: "p\($0)", name: "", unitPrice: 100_000_000, quantity: 999) }
        #expect(cart.subtotal == 100 * 100_000_000 * 999)
        cart.cartDiscount = Discount(id: "C", percent: 1)
        #expect(cart.total == 9_990_000_000_000 - 99_900_000_000)
    }

    @Test func moneyIsFormattedWithTwoDecimals() {
        #expect(Money.format(cents: 0) == "0.00")
        #expect(Money.format(cents: 5) == "0.05")
        #expect(Money.format(cents: 1250) == "12.50")
        #expect(Money.format(cents: -1) == "-0.01")
    }
}
