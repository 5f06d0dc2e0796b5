public import Deciding

/// The shop's field types, beside the log's own (`identifier`, `text`, `integer`, `bool`).
///
/// Each is an inlinable computed property whose recorded range is a literal, so a check inlined
/// into a codec folds it away; `TotalFoldTests` holds the literals to the constants they come from
/// (`FieldChecks`' ranges, `largestCartTotal`). The rest of each type is its rules, below.
extension FieldType {
    /// Money in integer cents; in a command 0 through 100,000,000 (`invalidPrice`). Recorded ones
    /// may be negative: the `totals-non-negative` invariant hunts for the totals older builds got wrong.
    @inlinable
    public static var cents: FieldType { FieldType(ShopFields.Cents.self, form: .integer, recordedRange: -9_990_000_000_000...9_990_000_000_000) }

    /// How many of a product; in a command 1 through 999 (`invalidQuantity`).
    @inlinable
    public static var quantity: FieldType { FieldType(ShopFields.Quantity.self, form: .integer, recordedRange: 1...999) }

    /// A whole percent; in a command 1 through 100 (`invalidPercent`). Recorded ones reach 1,000:
    /// an older build recorded the 150% coupon that `bisect` finds.
    @inlinable
    public static var percent: FieldType { FieldType(ShopFields.Percent.self, form: .integer, recordedRange: 0...1_000) }

    /// A fixed amount off, in integer cents; in a command 1 through 100,000,000 (`invalidAmount`).
    @inlinable
    public static var amount: FieldType { FieldType(ShopFields.Amount.self, form: .integer, recordedRange: 0...100_000_000) }

    /// A tab of the home screen; in a command 0 or 1 (`invalidTab`).
    @inlinable
    public static var tab: FieldType { FieldType(ShopFields.Tab.self, form: .integer, recordedRange: 0...99) }

    /// An ISO 4217 currency code: three capital letters, such as EUR (`invalidCurrency`), in a
    /// command and in a recorded event alike: states keep it in a short string.
    @inlinable
    public static var currency: FieldType { FieldType(ShopFields.Currency.self, form: .text, checksRecordedText: true) }
}

/// The rules of the shop's field types: names, check order, command ranges, codes and sentences.
public enum ShopFields {
    public enum Cents: FieldTypeRules {
        public static var name: String { "cents" }
        public static var checkOrder: Int { 1 }
        public static var entry: FieldType.Entry { .decimalCents }
        public static var commandRange: ClosedRange<Int>? { FieldChecks.unitPriceRange }
        public static var rangeCode: RejectionCode? { .invalidPrice }
        public static func refusal(ofNumber shown: String, role: String) -> String {
            "The \(role) \(shown) cents is out of range; use 0 through \(FieldChecks.unitPriceRange.upperBound) cents (0.00 to 1,000,000.00)."
        }
    }

    public enum Quantity: FieldTypeRules {
        public static var name: String { "quantity" }
        public static var checkOrder: Int { 2 }
        public static var entry: FieldType.Entry { .wholeNumber }
        public static var commandRange: ClosedRange<Int>? { FieldChecks.quantityRange }
        public static var rangeCode: RejectionCode? { .invalidQuantity }
        public static func refusal(ofNumber shown: String, role: String) -> String {
            "The \(role) \(shown) is out of range; use a whole number from 1 through 999."
        }
    }

    public enum Percent: FieldTypeRules {
        public static var name: String { "percent" }
        public static var checkOrder: Int { 3 }
        public static var entry: FieldType.Entry { .wholeNumber }
        public static var commandRange: ClosedRange<Int>? { FieldChecks.percentRange }
        public static var rangeCode: RejectionCode? { .invalidPercent }
        public static func refusal(ofNumber shown: String, role: String) -> String {
            "The discount of \(shown)% is out of range; use a whole percent from 1 through 100."
        }
    }

    public enum Amount: FieldTypeRules {
        public static var name: String { "amount" }
        public static var checkOrder: Int { 3 }
        public static var entry: FieldType.Entry { .decimalCents }
        public static var commandRange: ClosedRange<Int>? { FieldChecks.amountOffRange }
        public static var rangeCode: RejectionCode? { .invalidAmount }
        public static func refusal(ofNumber shown: String, role: String) -> String {
            "The \(role) \(shown) cents is out of range; use 1 through \(FieldChecks.amountOffRange.upperBound) cents (0.01 to 1,000,000.00)."
        }
    }

    public enum Tab: FieldTypeRules {
        public static var name: String { "tab" }
        public static var checkOrder: Int { 4 }
        public static var entry: FieldType.Entry { .wholeNumber }
        public static var commandRange: ClosedRange<Int>? { FieldChecks.tabRange }
        public static var rangeCode: RejectionCode? { .invalidTab }
        public static func refusal(ofNumber shown: String, role: String) -> String {
            "Tab \(shown) does not exist; the home screen has tabs 0 and 1."
        }
    }

    public enum Currency: FieldTypeRules {
        public static var name: String { "currency" }
        public static var checkOrder: Int { 4 }
        public static func allows(_ text: String) -> Bool { FieldChecks.isCurrencyCode(text) }
        public static func refusal(ofText text: String, role: String) -> Rejection {
            let shown = text.count > 20 ? String(text.prefix(20)) + "…" : text
            return Rejection(.invalidCurrency, "The currency \"\(shown)\" is not an ISO 4217 code; use three capital letters, such as EUR or USD.")
        }
        public static var recordedExplanation: String {
            "not an ISO 4217 currency code (invalidCurrency): three capital letters, such as EUR"
        }
    }
}
