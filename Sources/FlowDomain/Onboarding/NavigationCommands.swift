public import Deciding

/// The onboarding flow's commands (SPEC §2 and §4), one family per screen as FlowAction groups
/// them; each kind declared once, as a payload with its fields.
public enum AppLifecycleCommand: CommandFamily {
    case launched(Launched)

    public struct Launched: CommandPayload {
        public static let declaration = CommandDeclaration("app.launched", actor: .system, cli: "system", "app-launched", "The app was launched.")
        public var hasOnboarded = false

        public init() {}
        public init(hasOnboarded: Bool) { self.hasOnboarded = hasOnboarded }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(
                Field("hasOnboarded", .bool, role: "has-onboarded flag", option: "has-onboarded", "The user has been through onboarding before."),
                &hasOnboarded)
        }
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case launched }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .launched(let payload): try v.visit(payload)
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> AppLifecycleCommand {
        switch kind {
        case .launched: .launched(try d.payload(Launched.self))
        }
    }
}

public enum WelcomeCommand: CommandFamily {
    case signUp
    case logIn

    public struct SignUp: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration("welcome.signUp", actor: .user, cli: "welcome", "sign-up", "Tap \"Sign up\".")
        public init() {}
    }

    public struct LogIn: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration("welcome.logIn", actor: .user, cli: "welcome", "log-in", "Tap \"Log in\".")
        public init() {}
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case signUp, logIn }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .signUp: try v.visit(SignUp())
        case .logIn: try v.visit(LogIn())
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> WelcomeCommand {
        switch kind {
        case .signUp: try d.fieldless(SignUp.self, .signUp)
        case .logIn: try d.fieldless(LogIn.self, .logIn)
        }
    }
}

public enum OnboardingCommand: CommandFamily {
    case next
    case back
    case finish

    public struct Next: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration(
            "onboarding.next", actor: .user, cli: "onboarding", "next", "Go to the next onboarding screen.")
        public init() {}
    }

    public struct Back: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration("onboarding.back", actor: .user, cli: "onboarding", "back", "Go back one screen.")
        public init() {}
    }

    public struct Finish: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration(
            "onboarding.finish", actor: .user, cli: "onboarding", "finish", "Finish onboarding and go home.")
        public init() {}
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case next, back, finish }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .next: try v.visit(Next())
        case .back: try v.visit(Back())
        case .finish: try v.visit(Finish())
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> OnboardingCommand {
        switch kind {
        case .next: try d.fieldless(Next.self, .next)
        case .back: try d.fieldless(Back.self, .back)
        case .finish: try d.fieldless(Finish.self, .finish)
        }
    }
}

public enum LoginCommand: CommandFamily {
    case succeeded
    case cancel

    public struct Succeeded: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration("login.succeeded", actor: .user, cli: "login", "succeeded", "The log-in worked.")
        public init() {}
    }

    public struct Cancel: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration("login.cancel", actor: .user, cli: "login", "cancel", "Cancel logging in.")
        public init() {}
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case succeeded, cancel }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .succeeded: try v.visit(Succeeded())
        case .cancel: try v.visit(Cancel())
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> LoginCommand {
        switch kind {
        case .succeeded: try d.fieldless(Succeeded.self, .succeeded)
        case .cancel: try d.fieldless(Cancel.self, .cancel)
        }
    }
}

public enum HomeCommand: CommandFamily {
    case selectTab(SelectTab)
    case presentModal

    public struct SelectTab: CommandPayload {
        public static let declaration = CommandDeclaration("home.selectTab", actor: .user, cli: "home", "select-tab", "Select a tab.")
        public var tab = 0

        public init() {}
        public init(tab: Int) { self.tab = tab }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("tab", .tab, role: "tab", option: "tab", "The tab, 0 or 1."), &tab)
        }
    }

    public struct PresentModal: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration("home.presentModal", actor: .user, cli: "home", "present-modal", "Show the modal.")
        public init() {}
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case selectTab, presentModal }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .selectTab(let payload): try v.visit(payload)
        case .presentModal: try v.visit(PresentModal())
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> HomeCommand {
        switch kind {
        case .selectTab: .selectTab(try d.payload(SelectTab.self))
        case .presentModal: try d.fieldless(PresentModal.self, .presentModal)
        }
    }
}

public enum ModalCommand: CommandFamily {
    case dismiss

    public struct Dismiss: CommandPayload, FieldlessPayload {
        public static let declaration = CommandDeclaration("modal.dismiss", actor: .user, cli: "modal", "dismiss", "Dismiss the modal.")
        public init() {}
    }

    public enum Kind: CaseIterable, Hashable, Sendable { case dismiss }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        try v.visit(Dismiss())
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> ModalCommand {
        try d.fieldless(Dismiss.self, .dismiss)
    }
}
