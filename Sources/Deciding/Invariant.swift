/// A named property every state a domain's rules can produce has. Today's rules never break one
/// (a domain's property tests check that); a state that breaks one came from events an older or
/// buggy build recorded, which is what `bisect --invariant NAME` hunts for.
public struct Invariant<State>: Sendable {
    public let name: String
    public let summary: String
    private let check: @Sendable (State) -> String?

    /// `check` answers `nil` when the state keeps the invariant, otherwise a sentence on what is wrong.
    public init(name: String, summary: String, check: @escaping @Sendable (State) -> String?) {
        self.name = name
        self.summary = summary
        self.check = check
    }

    /// `nil` when the state keeps the invariant, otherwise a sentence on what is wrong.
    public func violation(in state: State) -> String? { check(state) }

    /// The invariant `all` of a list: the first violation of any, named.
    public static func all(_ invariants: [Invariant]) -> Invariant {
        Invariant(name: "all", summary: "every invariant above") { state in
            for invariant in invariants { if let violation = invariant.violation(in: state) { return "\(invariant.name): \(violation)" } }
            return nil
        }
    }
}

extension Decider {
    /// The domain's invariant of this name, or `all` of them; `nil` for a name it does not declare.
    public static func invariant(named name: String) -> Invariant<State>? {
        name == "all" ? Invariant.all(invariants) : invariants.first { $0.name == name }
    }

    /// Every invariant's name, then `all`: what an unknown name's error lists.
    public static var invariantNames: [String] { invariants.map(\.name) + ["all"] }
}
