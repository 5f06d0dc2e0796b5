import ArgumentParser
import FlowLogBasics

/// How the command line reads numbers and times, with messages that say what was wrong and what is
/// accepted. Number options are declared with `parsing: .unconditional`, so `--limit -1` gives
/// `-1` to the check (which says the range) instead of being taken for an option.
enum ValueArguments {
    /// Why a value is not what its option takes; ArgumentParser shows it after "The value 'X' is
    /// invalid for '--option <option>': ".
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static let wholeNumberAdvice = "not a whole number; write digits only, such as 12 (no decimals, exponents or separators)"

    /// Digits that are a whole number but not one 64 bits hold: never wrapped or clamped, refused
    /// with the range (each option's own check says its narrower one).
    static let pastSixtyFourBitsAdvice = "past the whole numbers FlowLog reads (\(Int.min) through \(Int.max)); give a smaller number"

    /// A whole number in digits, with an optional sign: `12`, `-1`. Not `1e2`, `2.0` or `1_000`.
    static func wholeNumber(_ text: String) throws -> Int {
        guard let number = parseWholeNumber(text) else { throw Problem(description: wholeNumberProblem(text)) }
        return number
    }

    /// Why `text` is no whole number: past 64 bits, or not digits at all.
    static func wholeNumberProblem(_ text: String) -> String {
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? pastSixtyFourBitsAdvice : wholeNumberAdvice
    }

    static func parseWholeNumber(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text.hasPrefix("+") ? String(digits) : text)
    }

    /// Seconds as decimal text: `30`, `2.5`, `-1` (for the range check to refuse).
    static func seconds(_ text: String) throws -> Double {
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }),
            let value = Double(text)
        else {
            throw Problem(description: "not a number of seconds; write digits, with a decimal point if need be, such as 30 or 2.5")
        }
        return value
    }

    /// What `--since` and `--until` take: an RFC 3339 time, or a date alone (midnight UTC).
    static let timeAdvice =
        "write an RFC 3339 time such as 2026-11-21T13:25:17Z (or with an offset, such as +01:00), or a date alone such as 2026-11-21 (midnight UTC)"

    /// The moment `text` names, or the rest of a sentence that starts with the option and the value,
    /// saying why it names none.
    static func time(_ text: String) -> Result<Timestamp, Problem> {
        let utf8 = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= utf8.count, utf8[range].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return utf8[range].reduce(0) { $0 * 10 + Int64($1 - 48) }
        }
        if utf8.count >= 10, let year = number(0..<4), utf8[4] == UInt8(ascii: "-"), let month = number(5..<7),
            utf8[7] == UInt8(ascii: "-"), let day = number(8..<10)
        {
            let date = String(text.prefix(10))
            guard (1...12).contains(month) else { return .failure(Problem(description: "is refused: there is no month \(month); \(timeAdvice)")) }
            let days = CivilDate.days(inMonth: month, year: year)
            guard (1...days).contains(day) else {
                return .failure(Problem(description: "is refused: \(date) is not a date: \(monthNames[Int(month) - 1]) \(year) has \(days) days"))
            }
            if utf8.count == 10, let midnight = Timestamp(rfc3339: date + "T00:00:00Z") { return .success(midnight) }
        }
        guard let timestamp = Timestamp(rfc3339: text) else { return .failure(Problem(description: "is not a time; \(timeAdvice)")) }
        return .success(timestamp)
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December",
    ]
}
