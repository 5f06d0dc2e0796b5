import Deciding

/// The onboarding flow's half of the Decider: the transitions of SPEC §4.
enum NavigationRules {
    static func decide(_ command: AppCommand, _ navigation: Navigation) throws(Rejection) -> NavigationEvent {
        if case .app(.launched(let launch)) = command {
            return .appLaunched(.init(hasOnboarded: launch.hasOnboarded))
        }
        guard navigation.launched else {
            throw Rejection(.notLaunched, "The app has not been launched in this stream; send app.launched first.")
        }
        if navigation.isModalPresented {
            guard case .modal(.dismiss) = command else {
                throw Rejection(
                    .invalidTransition, "A modal is shown, so \(command.typeName) is not possible; dismiss the modal first (modal.dismiss).")
            }
            return .modalDismissed
        }
        let screen = navigation.topScreen ?? .welcome
        switch (screen, command) {
        case (.welcome, .welcome(.signUp)): return .signUpStarted
        case (.welcome, .welcome(.logIn)): return .logInStarted
        case (.onboardingFirst, .onboarding(.next)): return .onboardingAdvanced
        case (.onboardingFirst, .onboarding(.back)), (.onboardingSecond, .onboarding(.back)): return .onboardingWentBack
        case (.onboardingSecond, .onboarding(.finish)): return .onboardingFinished
        case (.login, .login(.succeeded)): return .loginSucceeded
        case (.login, .login(.cancel)): return .loginCancelled
        case (.home, .home(.selectTab(let selection))): return .tabSelected(.init(tab: selection.tab))
        case (.home, .home(.presentModal)): return .modalPresented
        default:
            throw Rejection(.invalidTransition, "\(command.typeName) is not possible on the \(screen.rawValue) screen; \(allowed(on: screen)).")
        }
    }

    static func evolve(_ navigation: inout Navigation, _ event: NavigationEvent) {
        switch event {
        case .appLaunched(let event):
            navigation.launched = true
            navigation.hasOnboarded = navigation.hasOnboarded || event.hasOnboarded
            navigation.stack = [navigation.hasOnboarded ? .home : .welcome]
            navigation.tab = 0
            navigation.isModalPresented = false
        case .signUpStarted:
            navigation.stack.append(.onboardingFirst)
        case .logInStarted:
            navigation.stack.append(.login)
        case .onboardingAdvanced:
            navigation.stack.append(.onboardingSecond)
        case .onboardingWentBack, .loginCancelled:
            if navigation.stack.count > 1 { navigation.stack.removeLast() }
        case .onboardingFinished, .loginSucceeded:
            navigation.hasOnboarded = true
            navigation.stack = [.home]
            navigation.tab = 0
        case .tabSelected(let event):
            navigation.tab = event.tab
        case .modalPresented:
            navigation.isModalPresented = true
        case .modalDismissed:
            navigation.isModalPresented = false
        }
    }

    /// What a person can do on a screen, for the `invalidTransition` sentence.
    private static func allowed(on screen: Screen) -> String {
        switch screen {
        case .welcome: "there, use welcome.signUp or welcome.logIn"
        case .onboardingFirst: "there, use onboarding.next or onboarding.back"
        case .onboardingSecond: "there, use onboarding.finish or onboarding.back"
        case .login: "there, use login.succeeded or login.cancel"
        case .home: "there, use home.selectTab or home.presentModal"
        }
    }
}
