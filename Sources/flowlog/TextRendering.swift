import FlowDomain
import FlowLog

/// Human-readable renderings for `--format text`. The JSON faces are the stable contract; these may change.
enum TextRendering {
    static func acceptance(_ acceptance: Acceptance, command: AppCommand) -> String {
        let positions = acceptance.receipt.positions
        let range = positions.count == 1 ? "position \(positions[0])" : "positions \(positions.first!)–\(positions.last!)"
        var text = "\(acceptance.duplicate ? "already accepted" : "accepted") \(command.typeName): stream \(acceptance.stream), \(range), version \(acceptance.receipt.version)"
        for (offset, event) in acceptance.events.enumerated() {
            text += "\n  #\(acceptance.receipt.firstPosition + offset) \(eventSummary(event))"
        }
        return text
    }

    static func eventSummary(_ event: AppEvent) -> String {
        var json = JSONWriter()
        FlowJSON.writeEventData(event, into: &json)
        let data = json.text
        return data == "{}" ? event.typeName : "\(event.typeName) \(data)"
    }

    static func state(_ state: FlowState, stream: String, version: Int) -> String {
        var lines = ["Stream \(stream), version \(version)", ""]
        let cart = state.cart
        lines.append("Cart (\(cart.status == .open ? "open" : "checking out"))")
        if cart.lines.isEmpty { lines.append("  (empty)") }
        for line in cart.lines {
            let discount = line.discount.map { "  -\($0.percent)% (\($0.id)) → \(Money.format(cents: line.discountedAmount))" } ?? ""
            lines.append("  \(pad(line.productId, 12)) \(pad(line.name, 16)) \(line.quantity) × \(Money.format(cents: line.unitPrice)) = \(Money.format(cents: line.regularAmount))\(discount)")
        }
        if let discount = cart.cartDiscount { lines.append("  Cart discount \(discount.id): -\(discount.percent)%") }
        lines.append("  Subtotal \(Money.format(cents: cart.subtotal)), total \(Money.format(cents: cart.total))")
        lines.append("")
        lines.append("Orders")
        if state.orders.orders.isEmpty { lines.append("  (none)") }
        for order in state.orders.orders {
            lines.append("  \(order.orderId): \(Money.format(cents: order.total)) for \(order.itemCount) item\(order.itemCount == 1 ? "" : "s")")
        }
        lines.append("")
        lines.append("Onboarding")
        lines.append("  " + navigation(state.navigation))
        return lines.joined(separator: "\n")
    }

    static func navigation(_ navigation: Navigation) -> String {
        guard navigation.launched else { return "not launched" }
        let stack = navigation.stack.map(\.rawValue).joined(separator: " › ")
        return "screen \(navigation.topScreen?.rawValue ?? "none") (stack \(stack)), tab \(navigation.tab), modal \(navigation.isModalPresented ? "shown" : "none"), onboarded \(navigation.hasOnboarded ? "yes" : "no")"
    }

    static func demoStep(number: Int, envelope: CommandEnvelope, outcome: CommandOutcome, before: FlowState, after: FlowState) -> String {
        let wire = WireCommand.encode(envelope)
        var lines = ["\(pad(String(number), 2, right: true)). \(envelope.command.actor.rawValue): \(wire)"]
        switch outcome {
        case .accepted(let acceptance):
            for (offset, event) in acceptance.events.enumerated() {
                lines.append("      event #\(acceptance.receipt.firstPosition + offset) v\(acceptance.receipt.version - acceptance.events.count + offset + 1): \(eventSummary(event))")
            }
        case .rejected(_, let rejection):
            lines.append("      rejected, nothing appended: \(rejection.code.rawValue): \(rejection.message)")
        }
        if before.navigation != after.navigation { lines.append("      navigation: \(navigation(after.navigation))") }
        if before.cart != after.cart || before.orders != after.orders {
            let cart = after.cart
            lines.append("      cart: \(cart.status.rawValue), \(cart.lines.count) line\(cart.lines.count == 1 ? "" : "s"), \(cart.itemCount) items, subtotal \(Money.format(cents: cart.subtotal)), total \(Money.format(cents: cart.total)); orders: \(after.orders.orders.count)")
        }
        return lines.joined(separator: "\n")
    }

    /// The analytics calls each service makes for these events, one line a call.
    static func trackerCalls(_ records: [RecordedEvent]) -> [String] {
        var lines: [String] = []
        let services: [any AnalyticsService] = [SegmentService(), SnakeCaseService()]
        for record in records {
            for service in services {
                var json = JSONWriter()
                if service.writeCall(for: record, into: &json) { lines.append("tracker \(service.name): \(json.text)") }
            }
        }
        return lines
    }

    /// One line of what the screen and the cart show.
    static func viewSummary(_ state: FlowState) -> String {
        let screen = ViewProjector.screen(state.navigation)
        let cart = ViewProjector.cart(state)
        let buttons = screen.buttons.map { $0.isEnabled ? "[\($0.title)]" : "(\($0.title))" }.joined(separator: " ")
        let modal = screen.modalTitle.map { " + modal \"\($0)\"" } ?? ""
        let checkout = cart.isCheckoutEnabled ? "[\(cart.checkoutButtonTitle)]" : "(\(cart.checkoutButtonTitle))"
        return "view: \"\(screen.title)\" \(buttons)\(modal) · \(cart.title) · \(cart.totalText) · \(checkout)"
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}

/// The table `flowlog log` prints.
final class EventTable {
    private var rows: [[String]] = []

    func add(_ record: RecordedEvent) {
        var json = JSONWriter()
        FlowJSON.writeEventData(record.event, into: &json)
        rows.append([String(record.position), record.stream, String(record.version), record.event.typeName,
                     record.actor.rawValue, record.timestamp.rfc3339, json.text])
    }

    func render() -> String {
        let header = ["POSITION", "STREAM", "VERSION", "TYPE", "ACTOR", "TIMESTAMP", "DATA"]
        guard !rows.isEmpty else { return "(no events)" }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max()! }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : TextRendering.pad(row[column], widths[column], right: column == 0 || column == 2)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
