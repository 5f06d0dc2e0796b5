public import Deciding

/// Every intent FlowLog accepts, as FlowAction-style nested enums: each flow owns its actions and
/// the app's command wraps them.
public enum AppCommand: CommandFamily {
    case cart(CartCommand)
    case payment(PaymentCommand)
    case app(AppLifecycleCommand)
    case welcome(WelcomeCommand)
    case onboarding(OnboardingCommand)
    case login(LoginCommand)
    case home(HomeCommand)
    case modal(ModalCommand)

    /// Which kind of command this is, without its fields.
    public enum Kind: CaseIterable, Hashable, Sendable {
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
}

extension AppCommand {
    /// The command `payload` is (`CommandKindTable.command(_:)`).
    public init<Payload: CommandPayload>(_ payload: Payload) { self = CommandKinds.table.command(payload) }
}

/// One command kind of the app as every list of kinds sees it.
public typealias CommandKindInfo = CommandKindEntry<AppCommand>

/// The app's commands as a domain's: the table the readers of any domain's commands ask.
extension AppCommand: DomainCommand {
    public static let kinds = CommandKindTable<AppCommand>()
}

/// Every command kind of the app (`CommandKindTable`), under the names its callers use.
public enum CommandKinds {
    public static var table: CommandKindTable<AppCommand> { AppCommand.kinds }

    public static var all: [CommandKindInfo] { table.all }
    public static func info(_ kind: AppCommand.Kind) -> CommandKindInfo { table.info(kind) }
    public static func info(typeName: String) -> CommandKindInfo? { table.info(typeName: typeName) }
    public static func info(ofPayload payloadType: any CommandPayload.Type) -> CommandKindInfo { table.info(ofPayload: payloadType) }
    public static func info(of command: AppCommand) -> CommandKindInfo { table.info(of: command) }
    public static var typeNames: [String] { table.typeNames }
}
