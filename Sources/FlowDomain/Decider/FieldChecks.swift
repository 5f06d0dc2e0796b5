/// The field checks of SPEC §3, step 1: they look at the command alone, never at the state, and run
/// in the order the spec lists (identifiers, price, quantity, percent, tab, text). Which check a
/// field gets comes from its declared type, so a new command kind is checked without a line here.
public enum FieldChecks {
    public static let unitPriceRange = 0...100_000_000
    public static let quantityRange = 1...999
    public static let percentRange = 1...100
    public static let tabRange = 0...1

    /// The first field of `command` that breaks a rule, as a rejection; `nil` when every field is fine.
    public static func firstViolation(in command: AppCommand) -> Rejection? {
        var checker = Checker()
        try? command.visitPayload(&checker)
        return checker.first
    }

    /// The rejection for an identifier that breaks SPEC §1's rule; `role` names it for the reader.
    public static func invalidIdentifier(_ id: String, role: String) -> Rejection {
        let shown = id.count > 80 ? String(id.prefix(80)) + "…" : id
        return Rejection(.invalidIdentifier, "The \(role) \"\(shown)\" is not a valid identifier; use 1 to 64 characters of A-Z a-z 0-9 . _ : -")
    }

    /// The spec's order of checks: a violation of an earlier class wins over any of a later one;
    /// within a class, the field declared first wins.
    private static func rank(_ type: FieldType) -> Int {
        switch type {
        case .identifier: 0
        case .cents: 1
        case .quantity: 2
        case .percent: 3
        case .tab: 4
        case .text: 5
        case .integer, .bool: 6
        }
    }

    private static func violation(_ field: Field, _ value: Int) -> Rejection? {
        let role = field.role.description
        switch field.type {
        case .cents where !unitPriceRange.contains(value):
            return Rejection(.invalidPrice, "The \(role) \(value) cents is out of range; use 0 through \(unitPriceRange.upperBound) cents (0.00 to 1,000,000.00).")
        case .quantity where !quantityRange.contains(value):
            return Rejection(.invalidQuantity, "The \(role) \(value) is out of range; use a whole number from 1 through 999.")
        case .percent where !percentRange.contains(value):
            return Rejection(.invalidPercent, "The discount of \(value)% is out of range; use a whole percent from 1 through 100.")
        case .tab where !tabRange.contains(value):
            return Rejection(.invalidTab, "Tab \(value) does not exist; the home screen has tabs 0 and 1.")
        default:
            return nil
        }
    }

    private static func violation(_ field: Field, _ value: String) -> Rejection? {
        switch field.type {
        case .identifier where !Identifier.isValid(value):
            return invalidIdentifier(value, role: field.role.description)
        case .text where !FreeText.isValid(value):
            return Rejection(.invalidText, "The \(field.role) is \(value.unicodeScalars.count) characters long; shorten it to at most \(FreeText.maximumLength).")
        default:
            return nil
        }
    }

    /// Visits a command's fields and keeps the violation the spec's order names first.
    private struct Checker: CommandPayloadVisitor, FieldVisitor {
        var first: Rejection?
        private var firstRank = Int.max

        mutating func visit<Payload: CommandPayload>(_ payload: Payload) throws {
            var copy = payload
            try copy.visitFields(&self)
        }

        private mutating func note(_ rejection: Rejection?, _ field: Field) {
            guard let rejection, FieldChecks.rank(field.type) < firstRank else { return }
            first = rejection
            firstRank = FieldChecks.rank(field.type)
        }

        mutating func visit(_ field: Field, _ value: inout String) { note(violation(field, value), field) }
        mutating func visit(_ field: Field, _ value: inout String?) { if let value { note(violation(field, value), field) } }
        mutating func visit(_ field: Field, _ value: inout Int) { note(violation(field, value), field) }
        mutating func visit(_ field: Field, _ value: inout Int?) { if let value { note(violation(field, value), field) } }
        mutating func visit(_ field: Field, _ value: inout Bool) {}
    }
}
