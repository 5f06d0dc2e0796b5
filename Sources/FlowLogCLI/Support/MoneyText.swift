/// Prices as people type them: decimal text with at most two decimals (`12.50`, `12.5`, `12`, `-3`).
enum MoneyText {
    /// Cents for `text`, or `nil` when it is not a decimal with at most two decimals.
    static func cents(_ text: String) -> Int? {
        var utf8 = Substring(text).utf8[...]
        var negative = false
        if utf8.first == UInt8(ascii: "-") { negative = true; utf8 = utf8.dropFirst() }
        let parts = utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy(isDigit) else { return nil }
        var cents = 0
        for digit in whole { cents = cents * 10 + Int(digit - 48) }
        cents *= 100
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...2).contains(fraction.count), fraction.allSatisfy(isDigit) else { return nil }
            var value = 0
            for digit in fraction { value = value * 10 + Int(digit - 48) }
            cents += fraction.count == 1 ? value * 10 : value
        }
        return negative ? -cents : cents
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
