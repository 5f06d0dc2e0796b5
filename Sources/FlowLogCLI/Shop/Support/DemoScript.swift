import FlowDomain
import FlowLog

/// The scripted session `flowlog demo` plays: launch, sign-up through onboarding to home, a few
/// products, a product and a cart discount, a checkout, one command the rules refuse, a failed and
/// then a successful payment. `Fixtures/demo.ndjson` is this script in wire form (a test keeps them equal).
enum DemoScript {
    static func commands(stream: String) -> [CommandEnvelope] {
        let steps: [AppCommand] = [
            .app(.launched(.init(hasOnboarded: false))),
            .welcome(.signUp),
            .onboarding(.next),
            .onboarding(.finish),
            .home(.selectTab(.init(tab: 1))),
            .cart(.addProduct(.init(productId: "p-mug", name: "Mug", unitPrice: 1250, quantity: 2))),
            .cart(.addProduct(.init(productId: "p-tee", name: "T-shirt", unitPrice: 1999, quantity: 1))),
            .cart(.addProduct(.init(productId: "p-stickers", name: "Sticker pack", unitPrice: 350, quantity: 3))),
            .cart(.applyDiscount(.init(discountId: "MUG10", percent: 10, productId: "p-mug"))),
            .cart(.applyDiscount(.init(discountId: "WELCOME5", percent: 5, productId: nil))),
            .cart(.removeProduct(.init(productId: "p-stickers", quantity: 1))),
            .cart(.checkout),
            .cart(.addProduct(.init(productId: "p-cap", name: "Cap", unitPrice: 1500, quantity: 1))),
            .payment(.failed(.init(reason: "card declined"))),
            .cart(.checkout),
            .payment(.succeeded(.init(orderId: "order-1"))),
            .home(.presentModal),
            .modal(.dismiss),
        ]
        return steps.enumerated().map { index, command in
            let number = index + 1
            return CommandEnvelope(
                stream: stream, commandId: "demo-\(number < 10 ? "0" : "")\(number)",
                correlationId: "demo-session", command: command)
        }
    }
}
