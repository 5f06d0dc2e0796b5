import ArgumentParser
import FlowDomain
import FlowLog

// One subcommand per command of SPEC §2, grouped by flow as the commands are.

struct CartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cart", abstract: "Change the shopping cart.",
        subcommands: [Add.self, Remove.self, ApplyDiscount.self, RemoveDiscount.self, Checkout.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a quantity of a product (cart.addProduct).")
        @Option(help: "The product id.") var product: String
        @Option(help: "The product's name (default: its id).") var name: String?
        @Option(help: "The unit price as decimal text, at most two decimals (12.50).") var price: String
        @Option(help: "How many to add, 1 through 999.") var quantity: Int = 1
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard MoneyText.cents(price) != nil else {
                throw ValidationError("--price must be a decimal number with at most two decimals, such as 12.50; got '\(price)'.")
            }
        }

        func run() throws {
            try Issue.run(.cart(.addProduct(.init(productId: product, name: name, unitPrice: MoneyText.cents(price)!, quantity: quantity))), envelope, global)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a quantity of a product, or its whole line (cart.removeProduct).")
        @Option(help: "The product id.") var product: String
        @Option(help: "How many to remove (default: the whole line).") var quantity: Int?
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func run() throws { try Issue.run(.cart(.removeProduct(.init(productId: product, quantity: quantity))), envelope, global) }
    }

    struct ApplyDiscount: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "apply-discount", abstract: "Apply a percent discount to a product or to the whole cart (cart.applyDiscount).")
        @Option(help: "The discount id.") var discount: String
        @Option(help: "The discount in whole percent, 1 through 100.") var percent: Int
        @Option(help: "The product it applies to (default: the whole cart).") var product: String?
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func run() throws { try Issue.run(.cart(.applyDiscount(.init(discountId: discount, percent: percent, productId: product))), envelope, global) }
    }

    struct RemoveDiscount: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-discount", abstract: "Remove an applied discount (cart.removeDiscount).")
        @Option(help: "The discount id.") var discount: String
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func run() throws { try Issue.run(.cart(.removeDiscount(.init(discountId: discount))), envelope, global) }
    }

    struct Checkout: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "checkout", abstract: "Start checking out the cart (cart.checkout).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func run() throws { try Issue.run(.cart(.checkout), envelope, global) }
    }
}

struct SystemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "system", abstract: "Report what the system did: app launches and payment answers.",
        subcommands: [AppLaunched.self, PaymentSucceeded.self, PaymentFailed.self])

    struct AppLaunched: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "app-launched", abstract: "The app was launched (app.launched).")
        @Flag(help: "The user has been through onboarding before.") var hasOnboarded = false
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func run() throws { try Issue.run(.app(.launched(.init(hasOnboarded: hasOnboarded))), envelope, global) }
    }

    struct PaymentSucceeded: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "payment-succeeded", abstract: "The payment provider said yes (payment.succeeded).")
        @Option(help: "The new order's id.") var order: String
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func run() throws { try Issue.run(.payment(.succeeded(.init(orderId: order))), envelope, global) }
    }

    struct PaymentFailed: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "payment-failed", abstract: "The payment provider said no (payment.failed).")
        @Option(help: "Why, in at most 200 characters.") var reason: String
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions

        func run() throws { try Issue.run(.payment(.failed(.init(reason: reason))), envelope, global) }
    }
}

struct WelcomeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "welcome", abstract: "Taps on the welcome screen.", subcommands: [SignUp.self, LogIn.self])

    struct SignUp: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sign-up", abstract: "Tap \"Sign up\" (welcome.signUp).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.welcome(.signUp), envelope, global) }
    }

    struct LogIn: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "log-in", abstract: "Tap \"Log in\" (welcome.logIn).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.welcome(.logIn), envelope, global) }
    }
}

struct OnboardingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onboarding", abstract: "Taps on the onboarding screens.", subcommands: [Next.self, Back.self, Finish.self])

    struct Next: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "next", abstract: "Go to the next onboarding screen (onboarding.next).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.onboarding(.next), envelope, global) }
    }

    struct Back: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "back", abstract: "Go back one screen (onboarding.back).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.onboarding(.back), envelope, global) }
    }

    struct Finish: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "finish", abstract: "Finish onboarding and go home (onboarding.finish).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.onboarding(.finish), envelope, global) }
    }
}

struct LoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "The log-in screen.", subcommands: [Succeeded.self, Cancel.self])

    struct Succeeded: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "succeeded", abstract: "The log-in worked (login.succeeded).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.login(.succeeded), envelope, global) }
    }

    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel logging in (login.cancel).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.login(.cancel), envelope, global) }
    }
}

struct HomeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "home", abstract: "The home screen.", subcommands: [SelectTab.self, PresentModal.self])

    struct SelectTab: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "select-tab", abstract: "Select a tab (home.selectTab).")
        @Option(help: "The tab, 0 or 1.") var tab: Int
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.home(.selectTab(.init(tab: tab))), envelope, global) }
    }

    struct PresentModal: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "present-modal", abstract: "Show the modal (home.presentModal).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.home(.presentModal), envelope, global) }
    }
}

struct ModalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modal", abstract: "The modal.", subcommands: [Dismiss.self])

    struct Dismiss: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "dismiss", abstract: "Dismiss the modal (modal.dismiss).")
        @OptionGroup var envelope: EnvelopeOptions
        @OptionGroup var global: GlobalOptions
        func run() throws { try Issue.run(.modal(.dismiss), envelope, global) }
    }
}
