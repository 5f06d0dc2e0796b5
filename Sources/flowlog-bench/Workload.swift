import FlowDomain
import FlowLog
import FlowLogLMDB

/// Realistic sessions: every command is accepted, so N commands make about N events. Each visit
/// launches the app, (on the first visit) signs up through onboarding, shops, gets a discount, checks
/// out, has a payment fail and then succeed, and opens and closes the modal.
struct Workload {
    let streams: Int

    /// The commands of visit `visit` (0-based) of stream `stream`.
    func visit(_ visit: Int, stream: Int) -> [CommandEnvelope] {
        let id = "session-\(stream)"
        var commands: [AppCommand] = [.app(.launched(.init(hasOnboarded: visit > 0)))]
        if visit == 0 { commands += [.welcome(.signUp), .onboarding(.next), .onboarding(.finish)] }
        let products = 2 + (stream + visit) % 3
        for product in 0..<products {
            commands.append(
                .cart(
                    .addProduct(
                        .init(
                            productId: "p\(product)", name: ["Mug", "T-shirt", "Sticker pack", "Cap"][product % 4],
                            unitPrice: 350 + 250 * product, quantity: 1 + (stream + product) % 3))))
        }
        commands += [
            .home(.selectTab(.init(tab: 1))),
            .cart(.applyDiscount(.init(discountId: "D\(visit)", percent: 10, productId: "p0"))),
            .cart(.applyDiscount(.init(discountId: "C\(visit)", percent: 5, productId: nil))),
            .cart(.removeProduct(.init(productId: "p1", quantity: nil))),
            .cart(.checkout),
            .payment(.failed(.init(reason: "card declined"))),
            .cart(.checkout),
            .payment(.succeeded(.init(orderId: "order-\(visit)"))),
            .home(.presentModal),
            .modal(.dismiss),
        ]
        return commands.map { CommandEnvelope(stream: id, command: $0) }
    }

    /// At least `count` commands, interleaving the streams visit by visit.
    func commands(count: Int) -> [CommandEnvelope] {
        var result: [CommandEnvelope] = []
        result.reserveCapacity(count + 32)
        var round = 0
        while result.count < count {
            for stream in 0..<streams where result.count < count {
                result += visit(round, stream: stream)
            }
            round += 1
        }
        return Array(result.prefix(count))
    }
}
