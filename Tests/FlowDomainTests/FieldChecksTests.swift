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

/// A field type is data a domain declares: its ranges, its code and its sentence.
@Suite("Field types")
struct FieldTypeTests {
    @Test func eachTypeWordsItsRefusal() {
        let cases: [(Rejection, RejectionCode, String)] = [
            (
                FieldType.cents.outOfRange("-1", role: "unit price"), .invalidPrice,
                "The unit price -1 cents is out of range; use 0 through 100000000 cents (0.00 to 1,000,000.00)."
            ),
            (
                FieldType.quantity.outOfRange("0", role: "quantity"), .invalidQuantity,
                "The quantity 0 is out of range; use a whole number from 1 through 999."
            ),
            (
                FieldType.percent.outOfRange("101", role: "percent"), .invalidPercent,
                "The discount of 101% is out of range; use a whole percent from 1 through 100."
            ),
            (
                FieldType.amount.outOfRange("0", role: "amount off"), .invalidAmount,
                "The amount off 0 cents is out of range; use 1 through 100000000 cents (0.01 to 1,000,000.00)."
            ),
            (FieldType.tab.outOfRange("2", role: "tab"), .invalidTab, "Tab 2 does not exist; the home screen has tabs 0 and 1."),
            (
                FieldType.integer.outOfRange("99999999999999999999", role: "expected version"), .malformedCommand,
                "The expected version 99999999999999999999 is out of range; use a whole number from 0 through 9007199254740991."
            ),
            (
                FieldType.currency.violation("euros", role: "currency")!, .invalidCurrency,
                "The currency \"euros\" is not an ISO 4217 code; use three capital letters, such as EUR or USD."
            ),
            (
                FieldType.text.violation(String(repeating: "x", count: 201), role: "product name")!, .invalidText,
                "The product name is 201 characters long; shorten it to at most 200."
            ),
            (
                FieldType.identifier.violation("a b", role: "product id")!, .invalidIdentifier,
                "The product id \"a b\" is not a valid identifier; use 1 to 64 characters of A-Z a-z 0-9 . _ : -"
            ),
        ]
        for (rejection, code, message) in cases {
            #expect(rejection.code == code)
            #expect(rejection.message == message)
        }
        #expect(
            FieldType.cents.outOfRange(String(repeating: "9", count: 50), role: "price").message.contains(
                String(repeating: "9", count: 40) + "… cents"))
    }

    /// A type no FlowLog code names, declared as a to-do app would: commands and recorded events
    /// are checked by its data alone.
    enum Stars: FieldTypeRules {
        static var name: String { "stars" }
        static var checkOrder: Int { 2 }
        static var entry: FieldType.Entry { .wholeNumber }
        static var commandRange: ClosedRange<Int>? { 1...5 }
        static var rangeCode: RejectionCode? { RejectionCode(rawValue: "invalidStars") }
        static func refusal(ofNumber shown: String, role: String) -> String { "\(shown) stars for the \(role)? Give 1 through 5." }
    }

    @Test func aDomainDeclaresItsOwnType() throws {
        let stars = FieldType(Stars.self, form: .integer, recordedRange: 0...5)
        #expect(stars.violation(3, role: "rating") == nil)
        #expect(stars.violation(6, role: "rating") == Rejection(RejectionCode(rawValue: "invalidStars"), "6 stars for the rating? Give 1 through 5."))
        #expect(stars.isWholeNumber && !stars.isMoney && stars != .integer && stars == stars && stars.name == "stars")
        let field = Field("rating", stars, column: EventColumn("rating", "INTEGER", order: 99, "Stars given."), "The stars given.")
        #expect(try field.recorded(0) == 0)
        #expect(throws: RecordedValueOutOfRange.self) { try field.recorded(6) }
        do {
            _ = try field.recorded(-1)
        } catch {
            #expect(error.description == "\"rating\" is -1, out of range (invalidStars): a recorded stars is 0 through 5")
        }
    }
}
