/// Prices as people type them: decimal text with at most two decimals (`12.50`, `12.5`, `12`, `-3`).
enum MoneyText {
    /// Cents for `text`, or `nil` when it is not a decimal with at most two decimals.
    static func cents(_ text: String) -> Int? {
        var utf8 = Substring(text).utf8[...]
        var negative = false
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        let parts = utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= wholeDigits, whole.allSatisfy(isDigit) else { return nil }
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

    /// The most digits before the point: twelve keep the cents far inside 64 bits, and far past
    /// the largest price (the field checks refuse what lies between).
    static let wholeDigits = 12

    /// A price in the right form whose whole part has more digits than `cents` reads.
    static func isTooLong(_ text: String) -> Bool {
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole.count > wholeDigits, whole.utf8.allSatisfy(isDigit) else { return false }
        return parts.count == 1 || (1...2).contains(parts[1].count) && parts[1].utf8.allSatisfy(isDigit)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
