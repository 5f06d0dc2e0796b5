import Deciding

/// Money is integer cents throughout FlowLog; these are the only arithmetic rules it needs.
public enum Money {
    /// `round(amount × percent / 100)`, half-up, for non-negative amounts (SPEC §3).
    @inline(__always)
    public static func percentage(_ percent: Int, of amount: Int) -> Int {
        sum(product(amount, percent), 50) / 100
    }

    // Sums and products of amounts saturate instead of trapping. Every state the rules make stays
    // far inside 64 bits (FieldChecks.largestCartTotal); only a fold of recorded events that no
    // rule made (a line of millions of additions, each within its field's range) can reach the
    // ends, and such a state breaks the `line-quantities` invariant long before. Folds are total:
    // no recorded event may take a reader down.

    /// `a + b`, or the nearest end of `Int` where the sum lies beyond it.
    @inline(__always)
    public static func sum(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : result
    }

    /// `a − b`, or the nearest end of `Int` where the difference lies beyond it.
    @inline(__always)
    public static func difference(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : result
    }

    /// `a × b`, or the nearest end of `Int` where the product lies beyond it.
    @inline(__always)
    public static func product(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? ((a < 0) == (b < 0) ? .max : .min) : result
    }

    /// Cents as decimal text with two decimals, for messages and views: `1250` → `"12.50"`.
    /// The currency of every cart, order and log before they had one.
    public static var currencyOfEarlierCarts: String { "USD" }

    /// Cents with the currency named where it is not USD (`12.50`, `12.50 EUR`): screens and
    /// `flowlog state` showed bare amounts before carts had currencies, and still do for USD.
    public static func format(cents: Int, in currency: String?) -> String {
        guard let currency, currency != currencyOfEarlierCarts else { return format(cents: cents) }
        return format(cents: cents) + " " + currency
    }

    public static func format(cents: Int) -> String {
        let sign = cents < 0 ? "-" : ""
        let magnitude = cents.magnitude
        let fraction = magnitude % 100
        return "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
