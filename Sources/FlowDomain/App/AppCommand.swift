public import Deciding

/// Every intent FlowLog accepts, as FlowAction-style nested enums: each flow owns its actions and
/// the app's command wraps them.
public enum AppCommand: CommandPayloadCarrier, Equatable, Sendable {
    case cart(CartCommand)
    case payment(PaymentCommand)
    case app(AppLifecycleCommand)
    case welcome(WelcomeCommand)
    case onboarding(OnboardingCommand)
    case login(LoginCommand)
    case home(HomeCommand)
    case modal(ModalCommand)

    /// Which kind of command this is, without its fields.
    public enum Kind: Hashable, Sendable {
        case cart(CartCommand.Kind)
        case payment(PaymentCommand.Kind)
        case app(AppLifecycleCommand.Kind)
        case welcome(WelcomeCommand.Kind)
        case onboarding(OnboardingCommand.Kind)
        case login(LoginCommand.Kind)
        case home(HomeCommand.Kind)
        case modal(ModalCommand.Kind)

        /// Every kind, in declaration order (SPEC §2's table).
        public static let allCases: [Kind] =
            CartCommand.Kind.allCases.map(Kind.cart) + PaymentCommand.Kind.allCases.map(Kind.payment)
            + AppLifecycleCommand.Kind.allCases.map(Kind.app) + WelcomeCommand.Kind.allCases.map(Kind.welcome)
            + OnboardingCommand.Kind.allCases.map(Kind.onboarding) + LoginCommand.Kind.allCases.map(Kind.login)
            + HomeCommand.Kind.allCases.map(Kind.home) + ModalCommand.Kind.allCases.map(Kind.modal)
    }

    /// Which kind of command this is: the kind whose payload type this command's payload has.
    public var kind: Kind { CommandKinds.info(of: self).kind }

    /// Hands the command's payload, with its concrete type, to `visitor`.
    public func visitPayload<V: CommandPayloadVisitor>(_ visitor: inout V) throws {
        switch self {
        case .cart(let command): try command.visitPayload(&visitor)
        case .payment(let command): try command.visitPayload(&visitor)
        case .app(let command): try command.visitPayload(&visitor)
        case .welcome(let command): try command.visitPayload(&visitor)
        case .onboarding(let command): try command.visitPayload(&visitor)
        case .login(let command): try command.visitPayload(&visitor)
        case .home(let command): try command.visitPayload(&visitor)
        case .modal(let command): try command.visitPayload(&visitor)
        }
    }

    /// A command of `kind` with the fields `decoder` reads.
    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ decoder: inout D) throws -> AppCommand {
        switch kind {
        case .cart(let kind): .cart(try CartCommand.decode(kind, &decoder))
        case .payment(let kind): .payment(try PaymentCommand.decode(kind, &decoder))
        case .app(let kind): .app(try AppLifecycleCommand.decode(kind, &decoder))
        case .welcome(let kind): .welcome(try WelcomeCommand.decode(kind, &decoder))
        case .onboarding(let kind): .onboarding(try OnboardingCommand.decode(kind, &decoder))
        case .login(let kind): .login(try LoginCommand.decode(kind, &decoder))
        case .home(let kind): .home(try HomeCommand.decode(kind, &decoder))
        case .modal(let kind): .modal(try ModalCommand.decode(kind, &decoder))
        }
    }

    /// SPEC §2's `type`, for example `cart.addProduct`.
    public var typeName: String { CommandKinds.info(of: self).typeName }

    /// Payment answers and app launches come from the system; everything else is a person's tap.
    /// Read from the payload type's declaration through the family's switch: `send` asks it of
    /// every command, and the kinds' table (a dictionary lookup and a copy of its strings) cost more.
    public var actor: Actor {
        var reader = ActorReader()
        try! visitPayload(&reader)
        return reader.actor
    }

    private struct ActorReader: CommandPayloadVisitor {
        var actor = Actor.user
        mutating func visit<Payload: CommandPayload>(_ payload: Payload) { actor = Payload.declaration.actor }
    }
}

extension AppCommand {
    /// The command `payload` is. Its kind is found by the payload's type, and the command is made
    /// by its family's decoding switch, which asks for exactly that payload: a kind's declaration
    /// names no app, and the families' switches stay the one place a kind is wired in.
    public init<Payload: CommandPayload>(_ payload: Payload) {
        var given = GivenPayload(payload)
        self = try! AppCommand.decode(CommandKinds.info(ofPayload: Payload.self).kind, &given)
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

/// One command kind as every list of kinds sees it.
public struct CommandKindInfo: Sendable {
    public let kind: AppCommand.Kind
    public let declaration: CommandDeclaration
    public let typeName: String
    public let fields: [FieldDescription]
    /// The blank command of the kind, for callers that fill it field by field.
    public let payloadType: any CommandPayload.Type
}

/// Every command kind, derived from the families' declarations.
public enum CommandKinds {
    public static let all: [CommandKindInfo] = AppCommand.Kind.allCases.map { kind in
        var blank = BlankDecoder()
        var reader = DeclarationReader()
        try! AppCommand.decode(kind, &blank).visitPayload(&reader)
        return CommandKindInfo(
            kind: kind, declaration: reader.declaration!, typeName: reader.declaration!.typeName.description,
            fields: reader.fields, payloadType: reader.payloadType!)
    }

    private static let lookup = KindLookup(kinds: all.map(\.kind), typeNames: all.map(\.typeName))
    /// Two kinds whose decoding gave one payload type would stop the program here, at the first use.
    private static let byPayloadType = Dictionary(uniqueKeysWithValues: all.enumerated().map { (ObjectIdentifier($1.payloadType), $0) })

    public static func info(_ kind: AppCommand.Kind) -> CommandKindInfo { all[lookup.byKind[kind]!] }

    public static func info(typeName: String) -> CommandKindInfo? { lookup.byTypeName[typeName].map { all[$0] } }

    /// The kind whose payload is `payloadType`.
    public static func info(ofPayload payloadType: any CommandPayload.Type) -> CommandKindInfo {
        all[byPayloadType[ObjectIdentifier(payloadType)]!]
    }

    /// The kind of `command`, found by its payload's type.
    public static func info(of command: AppCommand) -> CommandKindInfo {
        var reader = PayloadTypeReader()
        try! command.visitPayload(&reader)
        return all[byPayloadType[reader.type]!]
    }

    /// Every type name, in declaration order.
    public static var typeNames: [String] { all.map(\.typeName) }

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
