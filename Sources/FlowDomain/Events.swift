/// Facts that happened, as the log records them. Events carry everything their reducers need
/// (prices, totals, resolved quantities), so replaying them never consults anything but the event.
public enum AppEvent: Equatable, Sendable {
    case cart(CartEvent)
    case navigation(NavigationEvent)

    /// The event's stable type name, as exports and `flowlog log` show it.
    public var typeName: String {
        switch self {
        case .cart(let event): event.typeName
        case .navigation(let event): event.typeName
        }
    }
}

public enum CartEvent: Equatable, Sendable {
    case productAdded(productId: String, name: String, unitPrice: Int, quantity: Int)
    /// `quantity` is what was taken off the line; a line that reaches 0 goes, with its discount.
    case productRemoved(productId: String, quantity: Int)
    case discountApplied(discountId: String, percent: Int, productId: String?)
    case discountRemoved(discountId: String)
    /// The cart's total and item count as they were when the checkout began.
    case checkoutStarted(total: Int, itemCount: Int)
    /// The payment provider said yes: the order as it was at checkout. The cart starts afresh.
    case orderPlaced(orderId: String, total: Int, itemCount: Int)
    case paymentFailed(reason: String)

    public var typeName: String {
        switch self {
        case .productAdded: "cart.productAdded"
        case .productRemoved: "cart.productRemoved"
        case .discountApplied: "cart.discountApplied"
        case .discountRemoved: "cart.discountRemoved"
        case .checkoutStarted: "cart.checkoutStarted"
        case .orderPlaced: "cart.orderPlaced"
        case .paymentFailed: "cart.paymentFailed"
        }
    }
}

public enum NavigationEvent: Equatable, Sendable {
    case appLaunched(hasOnboarded: Bool)
    case signUpStarted
    case logInStarted
    case onboardingAdvanced
    case onboardingWentBack
    case onboardingFinished
    case loginSucceeded
    case loginCancelled
    case tabSelected(Int)
    case modalPresented
    case modalDismissed

    public var typeName: String {
        switch self {
        case .appLaunched: "app.launched"
        case .signUpStarted: "welcome.signUpStarted"
        case .logInStarted: "welcome.logInStarted"
        case .onboardingAdvanced: "onboarding.advanced"
        case .onboardingWentBack: "onboarding.wentBack"
        case .onboardingFinished: "onboarding.finished"
        case .loginSucceeded: "login.succeeded"
        case .loginCancelled: "login.cancelled"
        case .tabSelected: "home.tabSelected"
        case .modalPresented: "home.modalPresented"
        case .modalDismissed: "modal.dismissed"
        }
    }
}
