/// What a field holds: how every codec writes it (its `form`), and, in a command, which check of
/// SPEC §3 step 1 it gets, in which order, and which error code a bad value earns.
///
/// A value rather than an enum, so that a domain declares its own types beside the log's four
/// (`extension FieldType { public static var cents: FieldType { … } }`) without a change to the
/// codecs, which look only at the form. Every member is plain data (a form, a flag, a range and
/// the rules' metatype), so a field costs no reference counting wherever codecs copy it, and a type
/// declared as an inlinable computed property folds its recorded range into the checks that read it.
public struct FieldType: Sendable {
    /// How a value of the type is stored and written: what the binary, JSON and CSV codecs switch on.
    public enum Form: UInt8, Sendable, Equatable {
        /// SPEC §1's identifier, kept in a short string (at most 64 bytes).
        case identifier
        case text
        case integer
        case bool
    }

    /// How the command line takes a number of the type.
    public enum Entry: Sendable, Equatable {
        /// Not a number (text, an identifier, a flag).
        case none
        /// As written: a quantity, a percent.
        case wholeNumber
        /// Money in integer cents, taken as decimal text (12.50).
        case decimalCents
    }

    public let form: Form
    /// Whether a recorded event's text of this type must meet `rules.allows` (a currency code):
    /// identifiers and the length of free text are the readers' own checks.
    public let checksRecordedText: Bool
    /// What a recorded event's integer field of this type may hold, wherever the event is read
    /// from: a log's records and rows, an export, a replayed file, a device's events (SPEC §6). A
    /// value outside it is refused by every reader, never clamped. Wider than a command's range
    /// where an older build recorded more, narrow enough that no fold of such events overflows;
    /// `nil` for a type that is not an integer.
    public let recordedRange: ClosedRange<Int>?
    /// Everything else the type says, which only checks and refusals read.
    public let rules: any FieldTypeRules.Type

    @inlinable
    public init(_ rules: any FieldTypeRules.Type, form: Form, recordedRange: ClosedRange<Int>? = nil, checksRecordedText: Bool = false) {
        self.form = form
        self.checksRecordedText = checksRecordedText
        self.recordedRange = recordedRange
        self.rules = rules
    }

    /// The largest integer every reader of FlowLog's JSON takes exactly, a double's 2^53 − 1: what
    /// a count, a position or a version may be where a field declares no smaller range.
    public static let largestExactInteger = 9_007_199_254_740_991

    /// The name `schema` and the CSV schema show for the type.
    public var name: String { rules.name }
    /// The spec's order of field checks: a violation of a type with a lower rank wins over any of a
    /// higher one; within a rank, the field declared first wins.
    public var checkOrder: Int { rules.checkOrder }
    /// What a command's integer of this type may be; `nil` for no bound beyond `recordedRange`'s.
    public var commandRange: ClosedRange<Int>? { rules.commandRange }
    /// The code a command's value out of this type's range earns, named beside a recorded value
    /// out of range too; `nil` for a type no command sets.
    public var rangeCode: RejectionCode? { rules.rangeCode }

    /// Money: the command line takes it as decimal text (12.50), not as a whole number of cents.
    public var isMoney: Bool { rules.entry == .decimalCents }

    /// A number the command line takes as written (a quantity, a percent, a tab).
    public var isWholeNumber: Bool { rules.entry == .wholeNumber }

    /// The rejection a command's integer field of this type earns for `value`; `nil` when it is fine.
    /// `role` is only made when there is a violation to word: turning a declared role into a
    /// `String` for every field of every command cost more than the checks.
    public func violation(_ value: Int, role: @autoclosure () -> String) -> Rejection? {
        guard let range = rules.commandRange, !range.contains(value) else { return nil }
        return outOfRange(String(value), role: role())
    }

    /// The rejection a command's integer field of this type earns for a number out of its range,
    /// also one written with more digits than 64 bits hold (`digits` as the line wrote it): the
    /// field's own code. A type no command sets gets `malformedCommand`.
    public func outOfRange(_ digits: String, role: String) -> Rejection {
        let shown = digits.count > 40 ? String(digits.prefix(40)) + "…" : digits
        guard let code = rules.rangeCode else {
            return Rejection(
                .malformedCommand, "The \(role) \(shown) is out of range; use a whole number from 0 through \(Self.largestExactInteger).")
        }
        return Rejection(code, rules.refusal(ofNumber: shown, role: role))
    }

    /// The rejection a command's text field of this type earns for `value`; `nil` when it is fine.
    public func violation(_ value: String, role: @autoclosure () -> String) -> Rejection? {
        rules.allows(value) ? nil : rules.refusal(ofText: value, role: role())
    }
}

/// What a field type says beyond its form: its name, where its check falls, what a command's value
/// may be and the sentence a bad one earns. A type's rules are a type of their own (an enum without
/// cases), so that `FieldType` carries them as one metatype: a field stays a few words of plain
/// data wherever codecs copy it, and two types are one when their rules are.
public protocol FieldTypeRules: SendableMetatype {
    static var name: String { get }
    static var checkOrder: Int { get }
    static var entry: FieldType.Entry { get }
    static var commandRange: ClosedRange<Int>? { get }
    static var rangeCode: RejectionCode? { get }
    /// The sentence for a number out of `commandRange`, `shown` as the line wrote it.
    static func refusal(ofNumber shown: String, role: String) -> String
    /// Whether a command's text (and, where the type says so, a recorded one) is allowed.
    static func allows(_ text: String) -> Bool
    static func refusal(ofText text: String, role: String) -> Rejection
    /// What `allows` wants, as the end of `RecordedValueOutOfRange`'s sentence.
    static var recordedExplanation: String { get }
}

extension FieldTypeRules {
    public static var entry: FieldType.Entry { .none }
    public static var commandRange: ClosedRange<Int>? { nil }
    public static var rangeCode: RejectionCode? { nil }
    public static func refusal(ofNumber shown: String, role: String) -> String { "The \(role) \(shown) is out of range." }
    public static func allows(_ text: String) -> Bool { true }
    public static func refusal(ofText text: String, role: String) -> Rejection {
        Rejection(.malformedCommand, "The \(role) is not a \(name).")
    }
    public static var recordedExplanation: String { "which is not a \(name)" }
}

extension FieldType: Equatable {
    /// Two types are one when their rules are.
    public static func == (lhs: FieldType, rhs: FieldType) -> Bool { ObjectIdentifier(lhs.rules) == ObjectIdentifier(rhs.rules) }
}

extension FieldType {
    /// SPEC §1's identifier: 1 to 64 characters of `A-Z a-z 0-9 . _ : -` (`invalidIdentifier`).
    @inlinable
    public static var identifier: FieldType { FieldType(Identifier.self, form: .identifier) }

    /// Free text; in a command at most 200 Unicode scalars (`invalidText`).
    @inlinable
    public static var text: FieldType { FieldType(FreeText.self, form: .text) }

    /// A plain integer that no command sets directly (an event's count, a position).
    @inlinable
    public static var integer: FieldType { FieldType(IntegerRules.self, form: .integer, recordedRange: 0...9_007_199_254_740_991) }

    @inlinable
    public static var bool: FieldType { FieldType(BoolRules.self, form: .bool) }

    public enum IntegerRules: FieldTypeRules {
        public static var name: String { "integer" }
        public static var checkOrder: Int { 6 }
        public static var entry: FieldType.Entry { .wholeNumber }
    }

    public enum BoolRules: FieldTypeRules {
        public static var name: String { "bool" }
        public static var checkOrder: Int { 6 }
    }
}
