import FlowDomain
import FlowLog

/// What `flowlog demo` prints for each step of its script.
enum DemoText {
    /// The command, its events or its rejection, and what changed in the navigation and the cart.
    static func step(number: Int, envelope: CommandEnvelope, outcome: CommandOutcome, before: FlowState, after: FlowState) -> [String] {
        let wire = WireCommand.encode(envelope)
        var lines = ["\(TextPadding.pad(String(number), 2, right: true)). \(envelope.command.actor.rawValue): \(wire)"]
        switch outcome {
        case .accepted(let acceptance):
            for (offset, event) in acceptance.events.enumerated() {
                lines.append("      event #\(acceptance.receipt.firstPosition + offset) v\(acceptance.receipt.version - acceptance.events.count + offset + 1): \(EventText.summary(event))")
            }
        case .rejected(_, let rejection):
            lines.append("      rejected, nothing appended: \(rejection.code.rawValue): \(rejection.message)")
        }
        if before.navigation != after.navigation { lines.append("      navigation: \(StateText.navigation(after.navigation))") }
        if before.cart != after.cart || before.orders != after.orders {
            let cart = after.cart
            lines.append("      cart: \(cart.status.rawValue), \(cart.lines.count) line\(cart.lines.count == 1 ? "" : "s"), \(cart.itemCount) items, subtotal \(Money.format(cents: cart.subtotal)), total \(Money.format(cents: cart.total)); orders: \(after.orders.orders.count)")
        }
        return lines
    }

    /// The analytics calls each service makes for these events, one line a call.
    static func trackerCalls(_ records: [RecordedEvent]) -> [String] {
        calls(records).map { "tracker \($0.service): \($0.call)" }
    }

    /// Each service's call for each event, as JSON text, in event order.
    static func calls(_ records: [RecordedEvent]) -> [(service: String, call: String)] {
        var calls: [(service: String, call: String)] = []
        let services: [any AnalyticsService] = [SegmentService(), SnakeCaseService()]
        for record in records {
            for service in services {
                var json = JSONWriter()
                if service.writeCall(for: record, into: &json) { calls.append((service.name, json.text)) }
            }
        }
        return calls
    }
}
