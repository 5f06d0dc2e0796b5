/// Which events an export takes: every condition given must hold (streams and types: any of those listed).
public struct ExportFilter: Sendable {
    public var streams: Set<String> = []
    public var types: Set<String> = []
    /// Inclusive global position bounds.
    public var fromPosition: Int = 1
    public var toPosition: Int?
    /// `since` is inclusive, `until` exclusive, so consecutive windows never share an event.
    public var since: Timestamp?
    public var until: Timestamp?

    public init() {}

    @inline(__always)
    public func accepts(_ record: RecordedEvent) -> Bool {
        if !streams.isEmpty, !streams.contains(record.stream) { return false }
        if !types.isEmpty, !types.contains(record.event.typeName) { return false }
        if let since, record.timestamp < since { return false }
        if let until, record.timestamp >= until { return false }
        return true
    }

    /// Every event type name, for validating `--type`.
    public static let eventTypes: [String] = [
        "cart.productAdded", "cart.productRemoved", "cart.discountApplied", "cart.discountRemoved",
        "cart.checkoutStarted", "cart.orderPlaced", "cart.paymentFailed", "app.launched",
        "welcome.signUpStarted", "welcome.logInStarted", "onboarding.advanced", "onboarding.wentBack",
        "onboarding.finished", "login.succeeded", "login.cancelled", "home.tabSelected",
        "home.modalPresented", "modal.dismissed",
    ]
}
