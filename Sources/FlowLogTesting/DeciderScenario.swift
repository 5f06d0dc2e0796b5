public import Deciding
public import FlowDomain

/// A specification of the Decider in the given/when/then form:
///
/// ```swift
/// let scenario = DeciderScenario.given(.cart(.productAdded(.init(productId: "p1", name: "Mug", unitPrice: 1250, quantity: 2))))
/// #expect(scenario.when(.cart(.checkout)) == .events([.cart(.checkoutStarted(.init(total: 2500, itemCount: 2)))]))
/// #expect(DeciderScenario.given().when(.cart(.checkout)) == .rejected(.emptyCart))
/// ```
public struct DeciderScenario {
    public let state: FlowState

    /// A scenario that starts from `state`.
    public init(state: FlowState) {
        self.state = state
    }

    public static func given(_ events: AppEvent...) -> DeciderScenario {
        DeciderScenario(state: FlowDecider.replay(events))
    }

    public static func given(events: [AppEvent]) -> DeciderScenario {
        DeciderScenario(state: FlowDecider.replay(events))
    }

    /// Feeds `commands` through decide and evolve, stopping at the first rejection (a precondition
    /// failure, since a scenario's set-up is meant to be valid).
    public static func given(commands: [AppCommand]) -> DeciderScenario {
        var state = FlowDecider.initialState
        for command in commands {
            do {
                for event in try FlowDecider.decide(command, state: state) { FlowDecider.evolve(&state, event) }
            } catch {
                preconditionFailure("scenario set-up command \(command.typeName) was rejected: \(error)")
            }
        }
        return DeciderScenario(state: state)
    }

    public func when(_ command: AppCommand) -> Outcome {
        do {
            return .events(try FlowDecider.decide(command, state: state))
        } catch {
            return .rejected(error.code)
        }
    }

    /// The state after `command`, or `nil` if it was rejected.
    public func stateAfter(_ command: AppCommand) -> FlowState? {
        guard case .events(let events) = when(command) else { return nil }
        return events.reduce(into: state) { FlowDecider.evolve(&$0, $1) }
    }

    public enum Outcome: Equatable, CustomStringConvertible {
        case events([AppEvent])
        case rejected(RejectionCode)

        public var description: String {
            switch self {
            case .events(let events): "events \(events)"
            case .rejected(let code): "rejected \(code.rawValue)"
            }
        }
    }
}
