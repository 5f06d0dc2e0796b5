import Testing

@testable import FlowLogCLI

@Suite("Prices as people type them")
struct MoneyTextTests {
    @Test(arguments: [("12.50", 1250), ("12.5", 1250), ("12", 1200), ("0.05", 5), ("-3", -300), ("1000000.00", 100_000_000)])
    func pricesParseAsCents(text: String, cents: Int) {
        #expect(MoneyText.cents(text) == cents)
    }

    @Test(arguments: ["12.505", "", ".5", "12.", "1e3", "12,50", "abc", "--1", "1.2.3"])
    func malformedPricesAreRefused(text: String) {
        #expect(MoneyText.cents(text) == nil)
    }
}
