/// A value that hands out one command payload with its concrete type: a family's command, or an
/// app's command made of many families.
public protocol CommandPayloadCarrier {
    func visitPayload<Visitor: CommandPayloadVisitor>(_ visitor: inout Visitor) throws
}

/// The field checks of SPEC §3, step 1, over a whole command: they look at the command alone, never
/// at the state, and run in the order the spec lists (identifiers, price, quantity, percent, tab,
/// text). Which check a field gets comes from its declared type (`FieldType`), so a new command
/// kind, or a new domain, is checked without a line here; a rule between two fields is the
/// payload's own `violation()`.
extension CommandPayloadCarrier {
    /// The first field of the command that breaks a rule, as a rejection; `nil` when every field is fine.
    @inlinable
    public var fieldViolation: Rejection? {
        var checker = FieldChecker()
        try? visitPayload(&checker)
        return checker.first
    }

    /// Who issues the command, from its payload type's declaration (a payment answer comes from
    /// the system, a tap from a person), read through the family's switch: `send` asks it of every
    /// command, and a lookup in the kinds' table (a dictionary and a copy of its strings) cost more.
    @inlinable
    public var actor: Actor {
        var reader = ActorReader()
        try? visitPayload(&reader)
        return reader.actor
    }
}

@usableFromInline
struct ActorReader: CommandPayloadVisitor {
    @usableFromInline var actor = Actor.user
    @inlinable init() {}
    @inlinable mutating func visit<Payload: CommandPayload>(_ payload: Payload) { actor = Payload.declaration.actor }
}

/// Visits a command's fields and keeps the violation the spec's order names first. Inlinable, so
/// that `send` checks each command's fields in code specialised for its command type.
@usableFromInline
struct FieldChecker: CommandPayloadVisitor, FieldVisitor {
    @usableFromInline var first: Rejection?
    @usableFromInline var firstRank = Int.max

    @inlinable init() {}

    @inlinable
    mutating func visit<Payload: CommandPayload>(_ payload: Payload) throws {
        var copy = payload
        try copy.visitFields(&self)
        // What no single field shows (two fields that exclude each other), after every field check.
        if first == nil { first = payload.violation() }
    }

    @inlinable
    mutating func note(_ rejection: Rejection?, _ field: Field) {
        guard let rejection, field.type.checkOrder < firstRank else { return }
        first = rejection
        firstRank = field.type.checkOrder
    }

    @inlinable mutating func visit(_ field: Field, _ value: inout String) { note(field.type.violation(value, role: field.role.description), field) }
    @inlinable mutating func visit(_ field: Field, _ value: inout String?) {
        if let value { note(field.type.violation(value, role: field.role.description), field) }
    }
    @inlinable mutating func visit(_ field: Field, _ value: inout Int) { note(field.type.violation(value, role: field.role.description), field) }
    @inlinable mutating func visit(_ field: Field, _ value: inout Int?) {
        if let value { note(field.type.violation(value, role: field.role.description), field) }
    }
    @inlinable mutating func visit(_ field: Field, _ value: inout Bool) {}
}
