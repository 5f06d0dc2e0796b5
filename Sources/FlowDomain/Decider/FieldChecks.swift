public import Deciding

/// The field checks of SPEC §3, step 1: they look at the command alone, never at the state, and run
/// in the order the spec lists (identifiers, price, quantity, percent, tab, text). Which check a
/// field gets comes from its declared type (`FieldType`), so a new command kind is checked without
/// a line here; a rule between two fields is the payload's own `violation()`.
public enum FieldChecks {
    public static let unitPriceRange = 0...100_000_000
    public static let quantityRange = 1...999
    public static let percentRange = 1...100
    public static let tabRange = 0...1
    /// The most a cart can hold: 100 lines of 999 at the largest unit price (9,990,000,000,000
    /// cents), so also the most any amount of a state the rules make can be.
    public static let largestCartTotal = Cart.maximumLines * Cart.maximumLineQuantity * unitPriceRange.upperBound

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

    /// Visits a command's fields and keeps the violation the spec's order names first.
    private struct Checker: CommandPayloadVisitor, FieldVisitor {
        var first: Rejection?
        private var firstRank = Int.max

        mutating func visit<Payload: CommandPayload>(_ payload: Payload) throws {
            var copy = payload
            try copy.visitFields(&self)
            // What no single field shows (two fields that exclude each other), after every field check.
            if first == nil { first = payload.violation() }
        }

        private mutating func note(_ rejection: Rejection?, _ field: Field) {
            guard let rejection, field.type.checkOrder < firstRank else { return }
            first = rejection
            firstRank = field.type.checkOrder
        }

        mutating func visit(_ field: Field, _ value: inout String) { note(field.type.violation(value, role: field.role.description), field) }
        mutating func visit(_ field: Field, _ value: inout String?) {
            if let value { note(field.type.violation(value, role: field.role.description), field) }
        }
        mutating func visit(_ field: Field, _ value: inout Int) { note(field.type.violation(value, role: field.role.description), field) }
        mutating func visit(_ field: Field, _ value: inout Int?) {
            if let value { note(field.type.violation(value, role: field.role.description), field) }
        }
        mutating func visit(_ field: Field, _ value: inout Bool) {}
    }
}
