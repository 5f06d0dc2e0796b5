import FlowDomain
import FlowLog

/// The projectors' statuses (`projections status`) and the orders of the storage read model (`orders`).
enum ProjectionRendering {
    static func status(_ status: ProjectionStatus, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("name"); json.string(status.name)
                json.key("checkpoint"); json.int(status.checkpoint)
                json.key("lag"); json.int(status.lag)
                json.key("failure"); json.string(status.failure)
                json.endObject()
            }
        case .text:
            let state = status.failure.map { "stopped: \($0)" } ?? (status.lag == 0 ? "current" : "behind")
            output.line("\(TextPadding.pad(status.name, 16)) checkpoint \(status.checkpoint), lag \(status.lag): \(state)")
        }
    }

    static func order(_ order: Order, position: Int, stream: String, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("position"); json.int(position)
                json.key("stream"); json.string(stream)
                json.key("orderId"); json.string(order.orderId)
                json.key("total"); json.int(order.total)
                json.key("itemCount"); json.int(order.itemCount)
                json.endObject()
            }
        case .text:
            output.line("#\(position) \(stream) \(order.orderId): \(Money.format(cents: order.total)) for \(order.itemCount) item\(order.itemCount == 1 ? "" : "s")")
        }
    }
}
