public import Deciding

/// What a field holds. The type decides how every codec writes the field (binary, JSON, CSV), and,
/// in a command, which check of SPEC §3 step 1 it gets, in which order, and which error code a bad
/// value earns: everything a new type needs is in this file.
public enum FieldType: Sendable, Equatable {
    /// SPEC §1's identifier: 1 to 64 characters of `A-Z a-z 0-9 . _ : -` (`invalidIdentifier`).
    case identifier
    /// Free text; in a command at most 200 Unicode scalars (`invalidText`).
    case text
    /// Money in integer cents; in a command 0 through 100,000,000 (`invalidPrice`).
    case cents
    /// How many of a product; in a command 1 through 999 (`invalidQuantity`).
    case quantity
    /// A whole percent; in a command 1 through 100 (`invalidPercent`).
    case percent
    /// A fixed amount off, in integer cents; in a command 1 through 100,000,000 (`invalidAmount`).
    case amount
    /// A tab of the home screen; in a command 0 or 1 (`invalidTab`).
    case tab
    /// An ISO 4217 currency code: three capital letters, such as EUR (`invalidCurrency`).
    case currency
    /// A plain integer that no command sets directly (an event's total or item count).
    case integer
    case bool

    /// The name `flowlog schema` and the CSV schema show for the type.
    public var name: String {
        switch self {
        case .identifier: "identifier"
        case .text: "text"
        case .cents: "cents"
        case .quantity: "quantity"
        case .percent: "percent"
        case .amount: "amount"
        case .tab: "tab"
        case .currency: "currency"
        case .integer: "integer"
        case .bool: "bool"
        }
    }

    /// The spec's order of field checks: a violation of a type with a lower rank wins over any of a
    /// higher one; within a rank, the field declared first wins.
    public var checkOrder: Int {
        switch self {
        case .identifier: 0
        case .cents: 1
        case .quantity: 2
        case .percent, .amount: 3
        case .tab, .currency: 4
        case .text: 5
        case .integer, .bool: 6
        }
    }

    /// A command's fixed amount off: at least a cent, at most the largest price.
    public static let amountOffRange = 1...100_000_000

    /// Money: the command line takes it as decimal text (12.50), not as a whole number of cents.
    public var isMoney: Bool { self == .cents || self == .amount }

    /// A number the command line takes as written (a quantity, a percent, a tab).
    public var isWholeNumber: Bool {
        switch self {
        case .quantity, .percent, .tab, .integer: true
        case .identifier, .text, .cents, .amount, .currency, .bool: false
        }
    }

    /// The rejection a command's integer field of this type earns for `value`; `nil` when it is fine.
    /// `role` is only made when there is a violation to word: turning a declared role into a
    /// `String` for every field of every command cost more than the checks.
    public func violation(_ value: Int, role: @autoclosure () -> String) -> Rejection? {
        switch self {
        case .cents where !FieldChecks.unitPriceRange.contains(value): outOfRange(String(value), role: role())
        case .quantity where !FieldChecks.quantityRange.contains(value): outOfRange(String(value), role: role())
        case .percent where !FieldChecks.percentRange.contains(value): outOfRange(String(value), role: role())
        case .amount where !FieldType.amountOffRange.contains(value): outOfRange(String(value), role: role())
        case .tab where !FieldChecks.tabRange.contains(value): outOfRange(String(value), role: role())
        default: nil
        }
    }

    /// The rejection a command's integer field of this type earns for a number written with more
    /// digits than 64 bits hold (`digits` as the line wrote it): the field's own code, as for any
    /// value out of its range. A type no command sets gets `malformedCommand`.
    public func outOfRange(_ digits: String, role: String) -> Rejection {
        let shown = digits.count > 40 ? String(digits.prefix(40)) + "…" : digits
        return switch self {
        case .cents:
            Rejection(
                .invalidPrice,
                "The \(role) \(shown) cents is out of range; use 0 through \(FieldChecks.unitPriceRange.upperBound) cents (0.00 to 1,000,000.00).")
        case .quantity:
            Rejection(.invalidQuantity, "The \(role) \(shown) is out of range; use a whole number from 1 through 999.")
        case .percent:
            Rejection(.invalidPercent, "The discount of \(shown)% is out of range; use a whole percent from 1 through 100.")
        case .amount:
            Rejection(
                .invalidAmount,
                "The \(role) \(shown) cents is out of range; use 1 through \(FieldType.amountOffRange.upperBound) cents (0.01 to 1,000,000.00).")
        case .tab:
            Rejection(.invalidTab, "Tab \(shown) does not exist; the home screen has tabs 0 and 1.")
        case .identifier, .text, .currency, .integer, .bool:
            Rejection(.malformedCommand, "The \(role) \(shown) is out of range; use a whole number from 0 through \(FieldType.largestExactInteger).")
        }
    }

    /// The largest integer every reader of FlowLog's JSON takes exactly, a double's 2^53 − 1: what
    /// a count, a position or a version may be where a field declares no smaller range.
    public static let largestExactInteger = 9_007_199_254_740_991

    /// What a recorded event's integer field of this type may hold, wherever the event is read
    /// from: a log's records and rows, an export, a replayed file, a device's events (SPEC §6). A
    /// value outside it is refused by every reader, never clamped. Wider than a command's range
    /// where an older build recorded more (the 150% coupon that bisect finds), narrow enough that
    /// no fold of such events overflows; `nil` for a type that is not an integer.
    ///
    /// Written as literals, which an inlined check folds away; `TotalFoldTests` holds them to the
    /// constants they come from (`FieldChecks.largestCartTotal`, `amountOffRange`, `largestExactInteger`).
    @inlinable
    public var recordedRange: ClosedRange<Int>? {
        switch self {
        // Negative too: the `totals-non-negative` invariant hunts for the totals older builds got wrong.
        case .cents: -9_990_000_000_000...9_990_000_000_000
        case .quantity: 1...999
        case .percent: 0...1_000
        case .amount: 0...100_000_000
        case .tab: 0...99
        case .integer: 0...9_007_199_254_740_991
        case .identifier, .text, .currency, .bool: nil
        }
    }

    /// The code a command's value out of this type's range earns, named beside a recorded value
    /// out of range too; `nil` for a type no command sets.
    public var rangeCode: RejectionCode? {
        switch self {
        case .cents: .invalidPrice
        case .quantity: .invalidQuantity
        case .percent: .invalidPercent
        case .amount: .invalidAmount
        case .tab: .invalidTab
        case .identifier, .text, .currency, .integer, .bool: nil
        }
    }

    /// The rejection a command's text field of this type earns for `value`; `nil` when it is fine.
    public func violation(_ value: String, role: @autoclosure () -> String) -> Rejection? {
        switch self {
        case .identifier where !Identifier.isValid(value):
            FieldChecks.invalidIdentifier(value, role: role())
        case .currency where !FieldChecks.isCurrencyCode(value):
            Rejection(
                .invalidCurrency,
                "The currency \"\(value.count > 20 ? String(value.prefix(20)) + "…" : value)\" is not an ISO 4217 code; use three capital letters, such as EUR or USD."
            )
        case .text where !FreeText.isValid(value):
            Rejection(
                .invalidText, "The \(role()) is \(value.unicodeScalars.count) characters long; shorten it to at most \(FreeText.maximumLength).")
        default:
            nil
        }
    }
}
