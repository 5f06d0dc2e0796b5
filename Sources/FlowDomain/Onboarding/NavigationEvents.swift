public import Deciding

/// The onboarding flow's events (SPEC §4's transitions as facts).
public enum NavigationEvent: EventFamily {
    case appLaunched(AppLaunched)
    case signUpStarted
    case logInStarted
    case onboardingAdvanced
    case onboardingWentBack
    case onboardingFinished
    case loginSucceeded
    case loginCancelled
    case tabSelected(TabSelected)
    case modalPresented
    case modalDismissed

    public struct AppLaunched: EventPayload {
        public static let declaration = EventDeclaration("app.launched", tag: 20, "The app was launched.")
        /// As the app reported it (the state keeps what it knew before, too).
        public var hasOnboarded = false

        @inlinable public init() {}
        public init(hasOnboarded: Bool) { self.hasOnboarded = hasOnboarded }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("hasOnboarded", .bool, column: .hasOnboarded, "Whether the app reported the user as onboarded."), &hasOnboarded)
        }
    }

    public struct SignUpStarted: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("welcome.signUpStarted", tag: 21, "Sign-up began: the first onboarding screen.")
        @inlinable public init() {}
    }

    public struct LogInStarted: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("welcome.logInStarted", tag: 22, "Logging in began: the log-in screen.")
        @inlinable public init() {}
    }

    public struct OnboardingAdvanced: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("onboarding.advanced", tag: 23, "The second onboarding screen was shown.")
        @inlinable public init() {}
    }

    public struct OnboardingWentBack: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("onboarding.wentBack", tag: 24, "The user went back one screen.")
        @inlinable public init() {}
    }

    public struct OnboardingFinished: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("onboarding.finished", tag: 25, "Onboarding was finished: home.")
        @inlinable public init() {}
    }

    public struct LoginSucceeded: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("login.succeeded", tag: 26, "The user logged in: home.")
        @inlinable public init() {}
    }

    public struct LoginCancelled: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("login.cancelled", tag: 27, "Logging in was cancelled.")
        @inlinable public init() {}
    }

    public struct TabSelected: EventPayload {
        public static let declaration = EventDeclaration("home.tabSelected", tag: 28, "A tab of the home screen was selected.")
        public var tab = 0

        @inlinable public init() {}
        public init(tab: Int) { self.tab = tab }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("tab", .tab, column: .tab, "The selected tab."), &tab)
        }
    }

    public struct ModalPresented: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("home.modalPresented", tag: 29, "The modal was shown over home.")
        @inlinable public init() {}
    }

    public struct ModalDismissed: EventPayload, FieldlessPayload {
        public static let declaration = EventDeclaration("modal.dismissed", tag: 30, "The modal was dismissed.")
        @inlinable public init() {}
    }

    public enum Kind: CaseIterable, Hashable, Sendable {
        case appLaunched, signUpStarted, logInStarted, onboardingAdvanced, onboardingWentBack, onboardingFinished
        case loginSucceeded, loginCancelled, tabSelected, modalPresented, modalDismissed
    }

    @inlinable
    public func visitPayload<V: EventPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .appLaunched(let payload): try v.visit(payload)
        case .signUpStarted: try v.visit(SignUpStarted())
        case .logInStarted: try v.visit(LogInStarted())
        case .onboardingAdvanced: try v.visit(OnboardingAdvanced())
        case .onboardingWentBack: try v.visit(OnboardingWentBack())
        case .onboardingFinished: try v.visit(OnboardingFinished())
        case .loginSucceeded: try v.visit(LoginSucceeded())
        case .loginCancelled: try v.visit(LoginCancelled())
        case .tabSelected(let payload): try v.visit(payload)
        case .modalPresented: try v.visit(ModalPresented())
        case .modalDismissed: try v.visit(ModalDismissed())
        }
    }

    @inlinable
    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> NavigationEvent {
        switch kind {
        case .appLaunched: .appLaunched(try d.event(AppLaunched.self))
        case .signUpStarted: try d.fieldless(SignUpStarted.self, .signUpStarted)
        case .logInStarted: try d.fieldless(LogInStarted.self, .logInStarted)
        case .onboardingAdvanced: try d.fieldless(OnboardingAdvanced.self, .onboardingAdvanced)
        case .onboardingWentBack: try d.fieldless(OnboardingWentBack.self, .onboardingWentBack)
        case .onboardingFinished: try d.fieldless(OnboardingFinished.self, .onboardingFinished)
        case .loginSucceeded: try d.fieldless(LoginSucceeded.self, .loginSucceeded)
        case .loginCancelled: try d.fieldless(LoginCancelled.self, .loginCancelled)
        case .tabSelected: .tabSelected(try d.event(TabSelected.self))
        case .modalPresented: try d.fieldless(ModalPresented.self, .modalPresented)
        case .modalDismissed: try d.fieldless(ModalDismissed.self, .modalDismissed)
        }
    }
}

/// The CSV columns the navigation events introduce, after the cart's.
extension EventColumn {
    public static let hasOnboarded = EventColumn("has_onboarded", "BOOLEAN", order: 20, "app.launched: as the app reported it")
    public static let tab = EventColumn("tab", "INTEGER", order: 21, "home.tabSelected")
}
