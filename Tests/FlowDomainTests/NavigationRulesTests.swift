import FlowDomain
import FlowLogTesting
import Testing

@Suite("Onboarding navigation (SPEC §4)")
struct NavigationRulesTests {
    private let launchedFresh = DeciderScenario.given(.navigation(.appLaunched(.init(hasOnboarded: false))))

    private func stack(after commands: [AppCommand]) -> [Screen] {
        DeciderScenario.given(commands: commands).state.navigation.stack
    }

    @Test(arguments: [
        AppCommand.welcome(.signUp), .welcome(.logIn), .onboarding(.next), .onboarding(.back), .onboarding(.finish),
        .login(.succeeded), .login(.cancel), .home(.selectTab(.init(tab: 1))), .home(.presentModal), .modal(.dismiss),
    ])
    func everythingButLaunchIsRefusedBeforeLaunch(command: AppCommand) {
        #expect(DeciderScenario.given().when(command) == .rejected(.notLaunched))
    }

    @Test func launchShowsWelcomeOrHome() {
        #expect(stack(after: [.app(.launched(.init(hasOnboarded: false)))]) == [.welcome])
        #expect(stack(after: [.app(.launched(.init(hasOnboarded: true)))]) == [.home])
    }

    @Test func hasOnboardedIsStickyAcrossLaunches() {
        let state = DeciderScenario.given(commands: [.app(.launched(.init(hasOnboarded: true))), .app(.launched(.init(hasOnboarded: false)))]).state
        #expect(state.navigation.hasOnboarded)
        #expect(state.navigation.stack == [.home])
    }

    @Test func relaunchResetsTabModalAndStack() {
        let state = DeciderScenario.given(commands: [
            .app(.launched(.init(hasOnboarded: true))), .home(.selectTab(.init(tab: 1))), .home(.presentModal),
            .app(.launched(.init(hasOnboarded: false))),
        ]).state
        #expect(
            state.navigation
                == {
                    var expected = Navigation()
                    expected.launched = true
                    expected.stack = [.home]
                    expected.hasOnboarded = true
                    return expected
                }())
    }

    @Test func signUpThroughOnboardingToHome() {
        let commands: [AppCommand] = [.app(.launched(.init(hasOnboarded: false))), .welcome(.signUp)]
        #expect(stack(after: commands) == [.welcome, .onboardingFirst])
        #expect(stack(after: commands + [.onboarding(.next)]) == [.welcome, .onboardingFirst, .onboardingSecond])
        #expect(stack(after: commands + [.onboarding(.next), .onboarding(.back)]) == [.welcome, .onboardingFirst])
        #expect(stack(after: commands + [.onboarding(.back)]) == [.welcome])
        let finished = DeciderScenario.given(commands: commands + [.onboarding(.next), .onboarding(.finish)]).state.navigation
        #expect(finished.stack == [.home])
        #expect(finished.hasOnboarded)
        #expect(finished.tab == 0)
    }

    @Test func logInSucceedsOrCancels() {
        let commands: [AppCommand] = [.app(.launched(.init(hasOnboarded: false))), .welcome(.logIn)]
        #expect(stack(after: commands) == [.welcome, .login])
        #expect(stack(after: commands + [.login(.cancel)]) == [.welcome])
        let loggedIn = DeciderScenario.given(commands: commands + [.login(.succeeded)]).state.navigation
        #expect(loggedIn.stack == [.home])
        #expect(loggedIn.hasOnboarded)
    }

    @Test func homeSelectsTabsAndPresentsTheModal() {
        let home = DeciderScenario.given(commands: [.app(.launched(.init(hasOnboarded: true)))])
        #expect(home.stateAfter(.home(.selectTab(.init(tab: 1))))!.navigation.tab == 1)
        #expect(home.when(.home(.presentModal)) == .events([.navigation(.modalPresented)]))
        #expect(home.when(.modal(.dismiss)) == .rejected(.invalidTransition))
    }

    @Test func whileTheModalIsShownOnlyDismissAndLaunchWork() {
        let modal = DeciderScenario.given(commands: [.app(.launched(.init(hasOnboarded: true))), .home(.presentModal)])
        #expect(modal.when(.home(.selectTab(.init(tab: 1)))) == .rejected(.invalidTransition))
        #expect(modal.when(.home(.presentModal)) == .rejected(.invalidTransition))
        #expect(modal.when(.welcome(.signUp)) == .rejected(.invalidTransition))
        #expect(modal.stateAfter(.modal(.dismiss))!.navigation.isModalPresented == false)
        #expect(modal.stateAfter(.app(.launched(.init(hasOnboarded: false))))!.navigation.isModalPresented == false)
    }

    @Test(arguments: [
        (
            Screen.welcome,
            [
                AppCommand.onboarding(.next), .onboarding(.back), .onboarding(.finish), .login(.succeeded), .login(.cancel),
                .home(.selectTab(.init(tab: 0))), .home(.presentModal),
            ]
        ),
        (.onboardingFirst, [.welcome(.signUp), .welcome(.logIn), .onboarding(.finish), .login(.succeeded), .home(.presentModal)]),
        (.onboardingSecond, [.welcome(.signUp), .onboarding(.next), .login(.cancel), .home(.selectTab(.init(tab: 1)))]),
        (.login, [.welcome(.logIn), .onboarding(.next), .onboarding(.back), .home(.presentModal)]),
        (.home, [.welcome(.signUp), .onboarding(.back), .login(.cancel)]),
    ])
    func otherCommandsOnAScreenAreInvalidTransitions(screen: Screen, commands: [AppCommand]) {
        let reach: [Screen: [AppCommand]] = [
            .welcome: [.app(.launched(.init(hasOnboarded: false)))],
            .onboardingFirst: [.app(.launched(.init(hasOnboarded: false))), .welcome(.signUp)],
            .onboardingSecond: [.app(.launched(.init(hasOnboarded: false))), .welcome(.signUp), .onboarding(.next)],
            .login: [.app(.launched(.init(hasOnboarded: false))), .welcome(.logIn)],
            .home: [.app(.launched(.init(hasOnboarded: true)))],
        ]
        let scenario = DeciderScenario.given(commands: reach[screen]!)
        #expect(scenario.state.navigation.topScreen == screen)
        for command in commands {
            #expect(scenario.when(command) == .rejected(.invalidTransition), "\(command.typeName) on \(screen)")
        }
    }

    @Test func cartCommandsDoNotDependOnNavigation() {
        #expect(
            DeciderScenario.given().when(.cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 1, quantity: 1))))
                == .events([.cart(.productAdded(.init(productId: "p", name: "p", unitPrice: 1, quantity: 1)))]))
        let modal = DeciderScenario.given(commands: [.app(.launched(.init(hasOnboarded: true))), .home(.presentModal)])
        #expect(
            modal.when(.cart(.applyDiscount(.init(discountId: "D", percent: 1, productId: nil))))
                == .events([.cart(.discountApplied(.init(discountId: "D", percent: 1, productId: nil)))]))
    }
}
