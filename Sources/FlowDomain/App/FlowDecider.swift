public import Deciding

/// FlowLog's Decider: an initial state, `decide` (command + state → events, or a rejection) and
/// `evolve` (state + event → state). Both are pure: no I/O, no clock, no randomness. Replaying the
/// same events therefore always rebuilds the same state.
/// What a decision may need besides the command and the state: facts of the log the command goes
/// to, fixed for its life, handed in by the pipeline so that `decide` stays pure.
public struct DecisionContext: Equatable, Sendable {
    /// The currency of a product whose command names none: the log's (USD unless it was created
    /// with another).
    public var defaultCurrency: String

    public init(defaultCurrency: String = Money.currencyOfEarlierCarts) { self.defaultCurrency = defaultCurrency }
}

public enum FlowDecider {
    public static let initialState = FlowState()

    /// Version of the reducers' meaning. Bump it whenever `evolve` changes what an old log means, so
    /// snapshots taken by older code are never trusted.
    public static let reducerVersion = 1

    /// Field checks, then the state checks of SPEC §3–4, in the spec's order. On success the events
    /// that record the command; a rejection otherwise, and the state is untouched.
    public static func decide(_ command: AppCommand, state: FlowState, context: DecisionContext = DecisionContext()) throws(Rejection) -> [AppEvent] {
        if let violation = command.fieldViolation { throw violation }
        return try decideValidated(command, state: state, context: context)
    }

    /// The state checks alone, for callers that ran the field checks earlier (SPEC §3 puts the command-id
    /// and version checks between the two).
    public static func decideValidated(_ command: AppCommand, state: FlowState, context: DecisionContext = DecisionContext()) throws(Rejection)
        -> [AppEvent]
    {
        switch command {
        case .cart(let cartCommand):
            return [.cart(try CartRules.decide(cartCommand, state.cart, context))]
        case .payment(let paymentCommand):
            return [.cart(try CartRules.decide(paymentCommand, state))]
        case .app, .welcome, .onboarding, .login, .home, .modal:
            return [.navigation(try NavigationRules.decide(command, state.navigation))]
        }
    }

    public static func evolve(_ state: inout FlowState, _ event: AppEvent) {
        switch event {
        case .cart(let cartEvent): CartRules.evolve(&state, cartEvent)
        case .navigation(let navigationEvent): NavigationRules.evolve(&state.navigation, navigationEvent)
        // The log's own facts, in its system streams: no session's state.
        case .system: break
        }
    }

    public static func evolve(_ state: FlowState, _ event: AppEvent) -> FlowState {
        var next = state
        evolve(&next, event)
        return next
    }

    /// Folds events from the initial state.
    public static func replay<S: Sequence<AppEvent>>(_ events: S) -> FlowState {
        var state = initialState
        for event in events { evolve(&state, event) }
        return state
    }
}
