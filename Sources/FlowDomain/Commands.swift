/// Every intent FlowLog accepts, as FlowAction-style nested enums: each flow owns its actions and the
/// app's command wraps them. The wire name of each case is SPEC §2's `type`.
public enum AppCommand: Equatable, Sendable {
    case cart(CartCommand)
    case payment(PaymentCommand)
    case app(AppLifecycleCommand)
    case welcome(WelcomeCommand)
    case onboarding(OnboardingCommand)
    case login(LoginCommand)
    case home(HomeCommand)
    case modal(ModalCommand)

    /// SPEC §2's `type`, for example `cart.addProduct`.
    public var typeName: String {
        switch self {
        case .cart(let command): "cart." + command.name
        case .payment(.succeeded): "payment.succeeded"
        case .payment(.failed): "payment.failed"
        case .app(.launched): "app.launched"
        case .welcome(.signUp): "welcome.signUp"
        case .welcome(.logIn): "welcome.logIn"
        case .onboarding(.next): "onboarding.next"
        case .onboarding(.back): "onboarding.back"
        case .onboarding(.finish): "onboarding.finish"
        case .login(.succeeded): "login.succeeded"
        case .login(.cancel): "login.cancel"
        case .home(.selectTab): "home.selectTab"
        case .home(.presentModal): "home.presentModal"
        case .modal(.dismiss): "modal.dismiss"
        }
    }

    /// Payment answers and app launches come from the system; everything else is a person's tap.
    public var actor: Actor {
        switch self {
        case .payment, .app: .system
        default: .user
        }
    }
}

public enum CartCommand: Equatable, Sendable {
    /// `name` absent means the product id is used as its name.
    case addProduct(productId: String, name: String?, unitPrice: Int, quantity: Int)
    /// `quantity` absent means the whole line.
    case removeProduct(productId: String, quantity: Int?)
    /// `productId` absent means a discount on the whole cart.
    case applyDiscount(discountId: String, percent: Int, productId: String?)
    case removeDiscount(discountId: String)
    case checkout

    var name: String {
        switch self {
        case .addProduct: "addProduct"
        case .removeProduct: "removeProduct"
        case .applyDiscount: "applyDiscount"
        case .removeDiscount: "removeDiscount"
        case .checkout: "checkout"
        }
    }
}

public enum PaymentCommand: Equatable, Sendable {
    case succeeded(orderId: String)
    case failed(reason: String)
}

public enum AppLifecycleCommand: Equatable, Sendable {
    case launched(hasOnboarded: Bool)
}

public enum WelcomeCommand: Equatable, Sendable {
    case signUp
    case logIn
}

public enum OnboardingCommand: Equatable, Sendable {
    case next
    case back
    case finish
}

public enum LoginCommand: Equatable, Sendable {
    case succeeded
    case cancel
}

public enum HomeCommand: Equatable, Sendable {
    case selectTab(Int)
    case presentModal
}

public enum ModalCommand: Equatable, Sendable {
    case dismiss
}
