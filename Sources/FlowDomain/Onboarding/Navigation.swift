import Deciding

/// The screens of the onboarding flow (seed "Building a dynamic modular iOS architecture").
public enum Screen: String, Equatable, Sendable, CaseIterable {
    case welcome
    case onboardingFirst
    case onboardingSecond
    case login
    case home
}

/// Where the app is: a navigation stack, an optional modal, and what the user has done so far.
public struct Navigation: Equatable, Sendable {
    public var launched = false
    public var stack: [Screen] = []
    public var isModalPresented = false
    public var hasOnboarded = false
    public var tab = 0

    public init() {}

    public var topScreen: Screen? { stack.last }
}
