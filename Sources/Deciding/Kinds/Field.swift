/// One field of a command or event kind: everything every list of fields needs, declared once.
///
/// Names are `StaticString`s, so that codecs on hot paths (an export writes millions of member
/// names) use their bytes without making strings.
public struct Field: Sendable {
    /// The member name in JSON (commands on the wire, `data` of exported events).
    public let name: StaticString
    public let type: FieldType
    /// A sentence for a person: `flowlog schema`, `--help`.
    public let summary: StaticString
    /// What messages call the field ("product id"), for commands' field checks.
    public let role: StaticString
    /// The command line's option for a command field (`price` for `--price`).
    public let option: StaticString
    /// The CSV column of an event field.
    public let column: EventColumn?
    /// A command-line default for an option the wire form requires (`--quantity` is 1).
    public let optionDefault: Int?

    /// A command's field.
    @inlinable
    public init(
        _ name: StaticString, _ type: FieldType, role: StaticString, option: StaticString,
        optionDefault: Int? = nil, _ summary: StaticString
    ) {
        self.name = name
        self.type = type
        self.summary = summary
        self.role = role
        self.option = option
        self.column = nil
        self.optionDefault = optionDefault
    }

    /// An event's field.
    @inlinable
    public init(_ name: StaticString, _ type: FieldType, column: EventColumn, _ summary: StaticString) {
        self.name = name
        self.type = type
        self.summary = summary
        self.role = name
        self.option = name
        self.column = column
        self.optionDefault = nil
    }

    public var nameText: String { name.description }
}

/// Visits each field of a payload, in declaration order, with access to its value: writing it
/// (codecs that encode), reading into it (codecs that decode, into a blank payload), checking it,
/// or only listing it. This is how every codec and check derives from one declaration per kind.
public protocol FieldVisitor {
    mutating func visit(_ field: Field, _ value: inout String) throws
    mutating func visit(_ field: Field, _ value: inout String?) throws
    mutating func visit(_ field: Field, _ value: inout Int) throws
    mutating func visit(_ field: Field, _ value: inout Int?) throws
    mutating func visit(_ field: Field, _ value: inout Bool) throws
}

/// A field as a list shows it, with whether it may be absent.
public struct FieldDescription: Sendable {
    public let field: Field
    public let optional: Bool
}

/// Lists a payload's fields without looking at their values.
struct FieldLister: FieldVisitor {
    var fields: [FieldDescription] = []
    mutating func visit(_ field: Field, _ value: inout String) { fields.append(FieldDescription(field: field, optional: false)) }
    mutating func visit(_ field: Field, _ value: inout String?) { fields.append(FieldDescription(field: field, optional: true)) }
    mutating func visit(_ field: Field, _ value: inout Int) { fields.append(FieldDescription(field: field, optional: false)) }
    mutating func visit(_ field: Field, _ value: inout Int?) { fields.append(FieldDescription(field: field, optional: true)) }
    mutating func visit(_ field: Field, _ value: inout Bool) { fields.append(FieldDescription(field: field, optional: false)) }
}

extension RecordedValueOutOfRange {
    /// A recorded value of `type` that the type does not allow (`FieldType.recordedRange`, or its
    /// `checksRecordedText`), worded by the type.
    public init(field: String, value: String, type: FieldType) {
        let explanation: String
        if type.checksRecordedText {
            explanation = type.rules.recordedExplanation
        } else if let range = type.recordedRange {
            let code = type.rangeCode.map { " (\($0.rawValue))" } ?? ""
            explanation = "out of range\(code): a recorded \(type.name) is \(range.lowerBound) through \(range.upperBound)"
        } else {
            explanation = "which is not a number it can hold"
        }
        self.init(field: field, value: value, quotesValue: type.checksRecordedText, explanation: explanation)
    }
}

extension Field {
    /// `value`, when a recorded event's field of this type may hold it (`FieldType.recordedRange`).
    /// One comparison for the readers of records, rows and exported lines to share.
    /// Always inlined: a replay calls it for every integer of every event, and a call into
    /// FlowDomain for each cost a tenth of `replay --summary`'s added time. The error is made out
    /// of line from the field's name and type alone: made from the whole field, the field was
    /// built in memory for every integer read, refused or not.
    @inlinable
    @inline(__always)
    public func recorded(_ value: Int) throws(RecordedValueOutOfRange) -> Int {
        if let range = type.recordedRange, !range.contains(value) { throw Field.outOfRange(name, type, value) }
        return value
    }

    /// `value`, when a recorded event's text field of this type may hold it (`checksRecordedText`:
    /// identifiers and the length of free text are the readers' own checks).
    @inlinable
    @inline(__always)
    public func recorded(_ value: String) throws(RecordedValueOutOfRange) -> String {
        if type.checksRecordedText, !type.rules.allows(value) { throw Field.outOfRange(name, type, value) }
        return value
    }

    /// The error for a value out of range, made out of line: only a refusal pays for it.
    @usableFromInline
    @inline(never)
    static func outOfRange(_ name: StaticString, _ type: FieldType, _ value: String) -> RecordedValueOutOfRange {
        RecordedValueOutOfRange(field: name.description, value: value, type: type)
    }

    @usableFromInline
    @inline(never)
    static func outOfRange(_ name: StaticString, _ type: FieldType, _ value: Int) -> RecordedValueOutOfRange {
        outOfRange(name, type, String(value))
    }
}
