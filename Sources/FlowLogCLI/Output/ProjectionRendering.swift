import FlowDomain
import FlowLogProjections
import FlowLogStore

/// The projectors' statuses (`projections status`) and the orders of the storage read model (`orders`).
enum ProjectionRendering {
    /// `delivery`: a tracker's counters (`nil` for the storage projector).
    static func status(_ status: ProjectionStatus, delivery: DeliveryStats?, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("name")
                json.string(status.name)
                json.key("checkpoint")
                json.int(status.checkpoint)
                json.key("lag")
                json.int(status.lag)
                json.key("failure")
                json.string(status.failure)
                if let delivery {
                    json.key("delivered")
                    json.int(delivery.delivered)
                    json.key("retried")
                    json.int(delivery.retried)
                    json.key("deadLettered")
                    json.int(delivery.deadLettered)
                    json.key("lastError")
                    json.string(delivery.lastError)
                }
                json.endObject()
            }
        case .text:
            let state = status.failure.map { "stopped: \($0)" } ?? (status.lag == 0 ? "current" : "behind")
            output.line("\(TextPadding.pad(status.name, 16)) checkpoint \(status.checkpoint), lag \(status.lag): \(TerminalText.escaped(state))")
            if let delivery {
                output.line(
                    "\(TextPadding.pad("", 16)) delivered \(delivery.delivered), retried \(delivery.retried), dead-lettered \(delivery.deadLettered)\(delivery.lastError.map { "; last error: " + TerminalText.escaped($0) } ?? "")"
                )
            }
        }
    }

    /// What `projections run` did for one projector.
    static func caughtUp(_ name: String, handled: Int, checkpoint: Int, format: OutputFormat, to output: OutputWriter) {
        output.result(format, text: "\(name): projected \(handled) events, checkpoint \(checkpoint)") { json in
            json.field("name", name)
            json.field("projected", handled)
            json.field("checkpoint", checkpoint)
        }
    }

    /// What `projections rebuild` did; `notResentThrough`: the calls a tracker's collector had
    /// acknowledged, which were not sent again (0 for none).
    static func rebuilt(_ name: String, handled: Int, notResentThrough: Int, format: OutputFormat, to output: OutputWriter) {
        output.result(format, text: "\(name): rebuilt from \(handled) events") { json in
            json.field("name", name)
            json.field("rebuiltFrom", handled)
            json.field("notResentThrough", notResentThrough)
        }
    }

    /// What `projections replay-dead-letters` did.
    static func replayed(_ name: String, letters: Int, delivered: Int, deadLettered: Int, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("name")
                json.string(name)
                json.key("replayed")
                json.int(letters)
                json.key("delivered")
                json.int(delivered)
                json.key("deadLettered")
                json.int(deadLettered)
                json.endObject()
            }
        case .text:
            output.line("\(name): replayed \(letters) dead letters: \(delivered) delivered, \(deadLettered) dead-lettered again")
        }
    }

    /// What GA4's validation server said about the GA4 tracker's pending events (`run --validate`).
    static func validation(_ findings: [GA4ValidationMessage], events: Int, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            for finding in findings {
                output.json { json in
                    json.beginObject()
                    json.key("fromPosition")
                    json.int(finding.positions.lowerBound)
                    json.key("throughPosition")
                    json.int(finding.positions.upperBound)
                    json.key("fieldPath")
                    json.string(finding.fieldPath)
                    json.key("description")
                    json.string(finding.description)
                    json.key("validationCode")
                    json.string(finding.validationCode)
                    json.endObject()
                }
            }
        case .text:
            for finding in findings {
                output.line(
                    "positions \(finding.positions.lowerBound)-\(finding.positions.upperBound): \(TerminalText.escaped(finding.validationCode)) at \(TerminalText.escaped(finding.fieldPath)): \(TerminalText.escaped(finding.description))"
                )
            }
            output.line("tracker.ga4: \(events) GA4 events validated, \(findings.count) validation message\(findings.count == 1 ? "" : "s")")
        }
    }

    static func order(_ order: Order, position: Int, stream: String, format: OutputFormat, to output: OutputWriter) {
        let text =
            "#\(position) \(stream) \(order.orderId): \(Money.format(cents: order.total, in: order.currency)) for \(order.itemCount) item\(order.itemCount == 1 ? "" : "s")"
        output.result(format, text: text) { json in
            json.field("position", position)
            json.field("stream", stream)
            json.field("orderId", order.orderId)
            json.field("total", order.total)
            json.field("itemCount", order.itemCount)
        }
    }
}
