/// Who issued a command: a person (a tap, CLI input) or the system (app launch, a payment provider).
public enum Actor: String, Sendable, CaseIterable {
    case user
    case system
}
