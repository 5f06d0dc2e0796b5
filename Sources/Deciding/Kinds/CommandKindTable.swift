/// One command kind as every list of kinds sees it.
public struct CommandKindEntry<Command: CommandFamily>: Sendable {
    public let kind: Command.Kind
    public let declaration: CommandDeclaration
    public let typeName: String
    public let fields: [FieldDescription]
    /// The kind's payload type, for callers that fill a blank one field by field.
    public let payloadType: any CommandPayload.Type
}

/// A domain's whole command type, with its table of kinds: `DomainEvent`'s counterpart, for the
/// readers of commands (the wire, the typed command line, the schema).
public protocol DomainCommand: CommandFamily {
    /// Built once, at the first use (a `static let`).
    static var kinds: CommandKindTable<Self> { get }
}

extension DomainCommand {
    /// SPEC §2's `type`, for example `cart.addProduct`.
    public var typeName: String { Self.kinds.info(of: self).typeName }
}

/// Every command kind of a domain, derived from its families' declarations: the wire reader, the
/// typed command line and the schema look kinds up here. A command's kind is found from its
/// payload's type, so the families' two switches stay the one place a kind is wired in.
public struct CommandKindTable<Command: CommandFamily>: Sendable {
    public let all: [CommandKindEntry<Command>]
    private let lookup: KindLookup<Command.Kind>
    private let byPayloadType: [ObjectIdentifier: Int]

    /// Two kinds whose decoding gave one payload type, or one type name, stop the program here.
    public init() {
        all = Command.Kind.allCases.map { kind in
            var blank = BlankDecoder()
            var reader = DeclarationReader()
            try! Command.decode(kind, &blank).visitPayload(&reader)
            return CommandKindEntry(
                kind: kind, declaration: reader.declaration!, typeName: reader.declaration!.typeName.description,
                fields: reader.fields, payloadType: reader.payloadType!)
        }
        lookup = KindLookup(kinds: all.map(\.kind), typeNames: all.map(\.typeName))
        byPayloadType = Dictionary(uniqueKeysWithValues: all.enumerated().map { (ObjectIdentifier($1.payloadType), $0) })
    }

    public func info(_ kind: Command.Kind) -> CommandKindEntry<Command> { all[lookup.byKind[kind]!] }

    public func info(typeName: String) -> CommandKindEntry<Command>? { lookup.byTypeName[typeName].map { all[$0] } }

    /// The kind whose payload is `payloadType`.
    public func info(ofPayload payloadType: any CommandPayload.Type) -> CommandKindEntry<Command> {
        all[byPayloadType[ObjectIdentifier(payloadType)]!]
    }

    /// The kind of `command`, found by its payload's type.
    public func info(of command: Command) -> CommandKindEntry<Command> {
        var reader = PayloadTypeReader()
        try! command.visitPayload(&reader)
        return all[byPayloadType[reader.type]!]
    }

    /// The command `payload` is: its kind found by the payload's type, the command made by the
    /// family's own decoding switch, which asks for exactly that payload.
    public func command<Payload: CommandPayload>(_ payload: Payload) -> Command {
        var given = GivenPayload(payload)
        return try! Command.decode(info(ofPayload: Payload.self).kind, &given)
    }

    /// Every type name, in declaration order.
    public var typeNames: [String] { all.map(\.typeName) }

    private struct PayloadTypeReader: CommandPayloadVisitor {
        var type = ObjectIdentifier(Never.self)
        mutating func visit<Payload: CommandPayload>(_ payload: Payload) { type = ObjectIdentifier(Payload.self) }
    }

    private struct DeclarationReader: CommandPayloadVisitor {
        var declaration: CommandDeclaration?
        var fields: [FieldDescription] = []
        var payloadType: (any CommandPayload.Type)?
        mutating func visit<Payload: CommandPayload>(_ payload: Payload) {
            declaration = Payload.declaration
            fields = Payload.fieldList
            payloadType = Payload.self
        }
    }
}

/// Hands a family's decoding switch the payload it already holds.
private struct GivenPayload<Given: CommandPayload>: PayloadDecoder {
    let given: Given
    init(_ given: Given) { self.given = given }

    func payload<Payload: KindPayload>(_ type: Payload.Type) throws -> Payload {
        // The switch asks for the type whose kind was looked up from `Given`: always this one.
        guard let payload = given as? Payload else { throw KindMismatch() }
        return payload
    }

    struct KindMismatch: Error {}
}
