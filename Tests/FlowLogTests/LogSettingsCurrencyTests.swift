import FlowDomain
import FlowLogStore
import Testing

/// The log's currency of earlier logs is the log's own constant (SPEC §6), and the shop's carts
/// read a missing currency as theirs: the two must name the same, or a log written before either
/// existed would decide in one currency and show its carts in another.
@Suite("The log's currency of earlier logs")
struct LogSettingsCurrencyTests {
    @Test func theLogAndTheShopReadAMissingCurrencyAlike() {
        #expect(LogSettings.currencyOfEarlierLogs == Money.currencyOfEarlierCarts)
        #expect(LogSettings.newLog().defaultCurrency == LogSettings.currencyOfEarlierLogs)
        #expect(LogDecider.decisionContext(defaultCurrency: LogSettings.currencyOfEarlierLogs) == DecisionContext())
    }
}
