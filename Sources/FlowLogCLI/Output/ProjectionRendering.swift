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
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("name"); json.string(name)
                json.key("projected"); json.int(handled)
                json.key("checkpoint"); json.int(checkpoint)
                json.endObject()
            }
        case .text:
            output.line("\(name): projected \(handled) events, checkpoint \(checkpoint)")
        }
    }

    /// What `projections rebuild` did; `notResentThrough`: the calls a tracker's collector had
    /// acknowledged, which were not sent again (0 for none).
    static func rebuilt(_ name: String, handled: Int, notResentThrough: Int, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("name"); json.string(name)
                json.key("rebuiltFrom"); json.int(handled)
                json.key("notResentThrough"); json.int(notResentThrough)
                json.endObject()
            }
        case .text:
            output.line("\(name): rebuilt from \(handled) events")
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
