import FlowDomain
import FlowLog
import FlowLogProjections
import FlowLogStore

/// What `flowlog demo` prints for each step of its script.
enum DemoText {
    /// The command, its events or its rejection, and what changed in the navigation and the cart.
    static func step(number: Int, envelope: CommandEnvelope, outcome: CommandOutcome, before: FlowState, after: FlowState) -> [String] {
        let wire = WireCommand.encode(envelope)
        var lines = ["\(TextPadding.pad(String(number), 2, right: true)). \(envelope.command.actor.rawValue): \(wire)"]
        switch outcome {
        case .accepted(let acceptance):
            for (offset, event) in acceptance.events.enumerated() {
                lines.append(
                    "      event #\(acceptance.receipt.firstPosition + offset) v\(acceptance.receipt.version - acceptance.events.count + offset + 1): \(EventText.summary(event))"
                )
            }
        case .rejected(_, let rejection):
            lines.append("      rejected, nothing appended: \(rejection.code.rawValue): \(rejection.message)")
        }
        if before.navigation != after.navigation { lines.append("      navigation: \(StateText.navigation(after.navigation))") }
        if before.cart != after.cart || before.orders != after.orders {
            let cart = after.cart
            lines.append(
                "      cart: \(cart.status.rawValue), \(cart.lines.count) line\(cart.lines.count == 1 ? "" : "s"), \(cart.itemCount) items, subtotal \(Money.format(cents: cart.subtotal)), total \(Money.format(cents: cart.total)); orders: \(after.orders.orders.count)"
            )
        }
        return lines
    }

    /// Each tracker's messages for these events (consecutive events of one stream), as the
    /// trackers' files hold them, in event order.
    static func calls(_ records: [RecordedEvent], services: [any AnalyticsService], log: any EventLog) throws -> [(service: String, call: String)] {
        guard let first = records.first else { return [] }
        var state = try StreamAnalyticsState.before(first, in: log)
        var calls: [(service: String, call: String)] = []
        for record in records {
            for service in services {
                for message in service.messages(for: TrackedEvent(record: record, before: state)) {
                    calls.append((service.name, String(decoding: service.fileLine(for: message), as: UTF8.self)))
                }
            }
            state.apply(record)
        }
        return calls
    }
}
