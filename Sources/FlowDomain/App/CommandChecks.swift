public import Deciding

/// The field checks of SPEC §3, step 1, over a whole command: they look at the command alone, never
/// at the state, and run in the order the spec lists (identifiers, price, quantity, percent, tab,
/// text). Which check a field gets comes from its declared type (`FieldType`), so a new command
/// kind is checked without a line here; a rule between two fields is the payload's own `violation()`.
extension FieldChecks {
    /// The first field of `command` that breaks a rule, as a rejection; `nil` when every field is fine.
    public static func firstViolation(in command: AppCommand) -> Rejection? {
        var checker = Checker()
        try? command.visitPayload(&checker)
        return checker.first
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
