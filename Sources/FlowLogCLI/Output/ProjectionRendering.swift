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

    /// What `projections run` did for one projector.
    static func caughtUp(_ name: String, handled: Int, checkpoint: Int, format: OutputFormat, to output: OutputWriter) {
        output.result(format, text: "\(name): projected \(handled) events, checkpoint \(checkpoint)") { json in
            json.field("name", name); json.field("projected", handled); json.field("checkpoint", checkpoint)
        }
    }

    /// What `projections rebuild` did; `notResentThrough`: the calls a tracker's collector had
    /// acknowledged, which were not sent again (0 for none).
    static func rebuilt(_ name: String, handled: Int, notResentThrough: Int, format: OutputFormat, to output: OutputWriter) {
        output.result(format, text: "\(name): rebuilt from \(handled) events") { json in
            json.field("name", name); json.field("rebuiltFrom", handled); json.field("notResentThrough", notResentThrough)
        }
    }

    static func order(_ order: Order, position: Int, stream: String, format: OutputFormat, to output: OutputWriter) {
        let text = "#\(position) \(stream) \(order.orderId): \(Money.format(cents: order.total)) for \(order.itemCount) item\(order.itemCount == 1 ? "" : "s")"
        output.result(format, text: text) { json in
            json.field("position", position); json.field("stream", stream); json.field("orderId", order.orderId)
            json.field("total", order.total); json.field("itemCount", order.itemCount)
        }
    }
}
