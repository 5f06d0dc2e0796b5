import FlowLog
import FlowLogBasics
import FlowLogStore

/// Events as text: an event's type with its data, and the answer to an accepted command.
enum EventText {
    /// `cart.productAdded {"productId":"p1",…}`, or the type alone for an event without fields.
    static func summary(_ event: LogDecider.Event) -> String {
        var json = JSONWriter()
        FlowJSON.writeEventData(event, into: &json)
        let data = json.text
        return data == "{}" ? event.typeName : "\(event.typeName) \(data)"
    }

    /// What a typed command prints when its command was accepted: the receipt, then each event.
    static func acceptance(_ acceptance: Acceptance, command: LogDecider.Command) -> [String] {
        let positions = acceptance.receipt.positions
        let range = positions.count == 1 ? "position \(positions[0])" : "positions \(positions.first!)–\(positions.last!)"
        var lines = [
            "\(acceptance.duplicate ? "already accepted" : "accepted") \(command.typeName): stream \(acceptance.stream), \(range), version \(acceptance.receipt.version)"
        ]
        for (offset, event) in acceptance.events.enumerated() {
            lines.append("  #\(acceptance.receipt.firstPosition + offset) \(summary(event))")
        }
        return lines
    }
}
