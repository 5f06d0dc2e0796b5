import Deciding
import FlowDomain
import FlowLogTesting
import Testing

@Suite("Field checks (SPEC §1 and §3 step 1)")
struct FieldChecksTests {
    @Test(arguments: ["a", "A-z_0.9:x", String(repeating: "x", count: 64)])
    func validIdentifiers(id: String) { #expect(Identifier.isValid(id)) }

    @Test(arguments: ["", " ", "a b", "é", "a/b", "a\"", String(repeating: "x", count: 65), "a\n"])
    func invalidIdentifiers(id: String) {
        #expect(!Identifier.isValid(id))
        #expect(
            DeciderScenario.given().when(.cart(.addProduct(.init(productId: id, name: nil, unitPrice: 1, quantity: 1))))
                == .rejected(.invalidIdentifier))
    }

    @Test(arguments: [(-1, RejectionCode.invalidPrice), (100_000_001, .invalidPrice), (Int.max, .invalidPrice)])
    func pricesOutOfRange(price: Int, code: RejectionCode) {
        #expect(DeciderScenario.given().when(.cart(.addProduct(.init(productId: "p", name: nil, unitPrice: price, quantity: 1)))) == .rejected(code))
    }

    @Test func priceBoundsAreInclusive() {
        for price in [0, 100_000_000] {
            #expect(
                DeciderScenario.given().when(.cart(.addProduct(.init(productId: "p", name: nil, unitPrice: price, quantity: 999))))
                    != .rejected(.invalidPrice))
        }
    }

    @Test(arguments: [0, -1, 1000])
    func quantitiesOutOfRange(quantity: Int) {
        #expect(
            DeciderScenario.given().when(.cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 1, quantity: quantity))))
                == .rejected(.invalidQuantity))
        // A field check: it fails before the state check that the product is not in the cart.
        #expect(DeciderScenario.given().when(.cart(.removeProduct(.init(productId: "p", quantity: quantity)))) == .rejected(.invalidQuantity))
    }

    @Test(arguments: [0, 101, -5])
    func percentsOutOfRange(percent: Int) {
        #expect(
            DeciderScenario.given().when(.cart(.applyDiscount(.init(discountId: "D", percent: percent, productId: nil))))
                == .rejected(.invalidPercent))
    }

    @Test(arguments: [-1, 2])
    func tabsOutOfRangeAreRefusedBeforeTheLaunchCheck(tab: Int) {
        #expect(DeciderScenario.given().when(.home(.selectTab(.init(tab: tab)))) == .rejected(.invalidTab))
    }

    @Test func textIsLimitedTo200Characters() {
        let longest = String(repeating: "é", count: 200)
        #expect(
            DeciderScenario.given().when(.cart(.addProduct(.init(productId: "p", name: longest, unitPrice: 1, quantity: 1))))
                != .rejected(.invalidText))
        #expect(
            DeciderScenario.given().when(.cart(.addProduct(.init(productId: "p", name: longest + "x", unitPrice: 1, quantity: 1))))
                == .rejected(.invalidText))
        #expect(DeciderScenario.given().when(.payment(.failed(.init(reason: String(repeating: "r", count: 201))))) == .rejected(.invalidText))
    }

    @Test func checksRunInSpecOrder() {
        // identifier before price before quantity before text
        #expect(
            DeciderScenario.given().when(
                .cart(.addProduct(.init(productId: "bad id", name: String(repeating: "x", count: 300), unitPrice: -1, quantity: 0))))
                == .rejected(.invalidIdentifier))
        #expect(
            DeciderScenario.given().when(
                .cart(.addProduct(.init(productId: "p", name: String(repeating: "x", count: 300), unitPrice: -1, quantity: 0))))
                == .rejected(.invalidPrice))
        #expect(
            DeciderScenario.given().when(
                .cart(.addProduct(.init(productId: "p", name: String(repeating: "x", count: 300), unitPrice: 1, quantity: 0))))
                == .rejected(.invalidQuantity))
        #expect(
            DeciderScenario.given().when(.cart(.applyDiscount(.init(discountId: "D", percent: 0, productId: "bad id"))))
                == .rejected(.invalidIdentifier))
        // field checks before state checks
        #expect(DeciderScenario.given().when(.payment(.succeeded(.init(orderId: "bad id")))) == .rejected(.invalidIdentifier))
    }
}
