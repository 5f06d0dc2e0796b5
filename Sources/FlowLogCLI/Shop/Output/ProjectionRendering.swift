import FlowDomain
import FlowLogBasics
import FlowLogProjections
import FlowLogStore

/// The projectors' statuses (`projections status`) and the orders of the storage read model (`orders`).
enum ProjectionRendering {
    /// `delivery`: a tracker's counters (`nil` for the storage projector). A split projector's
    /// checkpoint and lag are its slowest part's; its parts follow, each with its holder.
    static func status(_ standing: ProjectorStanding, delivery: DeliveryStats?, format: OutputFormat, to output: OutputWriter) {
        let status = standing.status
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
                json.key("holder")
                holder(standing.holder, into: &json)
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
                if !standing.parts.isEmpty {
                    json.key("partitions")
                    json.beginArray()
                    for part in standing.parts {
                        json.beginObject()
                        json.field("name", part.status.name)
                        json.field("partition", part.partition.index + 1)
                        json.field("checkpoint", part.status.checkpoint)
                        json.field("lag", part.status.lag)
                        json.field("failure", part.status.failure)
                        json.key("holder")
                        holder(part.holder, into: &json)
                        json.endObject()
                    }
                    json.endArray()
                }
                json.endObject()
            }
        case .text:
            let state = status.failure.map { "stopped: \($0)" } ?? (status.lag == 0 ? "current" : "behind")
            let split = standing.parts.isEmpty ? "" : " (slowest of \(standing.parts.count) parts)"
            output.line(
                "\(TextPadding.pad(status.name, 16)) checkpoint \(status.checkpoint), lag \(status.lag)\(split): \(TerminalText.escaped(state))\(held(standing.holder))"
            )
            if let delivery {
                output.line(
                    "\(TextPadding.pad("", 16)) delivered \(delivery.delivered), retried \(delivery.retried), dead-lettered \(delivery.deadLettered)\(delivery.lastError.map { "; last error: " + TerminalText.escaped($0) } ?? "")"
                )
            }
            for part in standing.parts {
                let state = part.status.failure.map { "stopped: \($0)" } ?? (part.status.lag == 0 ? "current" : "behind")
                output.line(
                    "  part \(part.partition.index + 1) of \(part.partition.count): checkpoint \(part.status.checkpoint), lag \(part.status.lag): \(TerminalText.escaped(state))\(held(part.holder).isEmpty ? ", run by nobody" : held(part.holder))"
                )
            }
        }
    }

    /// `, run by process 123 on host (generation 4)`, or nothing when nobody holds the lease.
    private static func held(_ holder: LeaseHolder?) -> String {
        guard let holder else { return "" }
        let process = holder.pid.map { "process \($0)" } ?? "a process"
        let host = holder.host.map { " on " + TerminalText.escaped($0) } ?? ""
        return ", run by \(process)\(host)\(holder.generation.map { " (generation \($0))" } ?? "")"
    }

    private static func holder(_ holder: LeaseHolder?, into json: inout JSONWriter) {
        guard let holder else { return json.null() }
        json.beginObject()
        json.field("pid", holder.pid.map(Int.init))
        json.field("host", holder.host)
        json.field("generation", holder.generation)
        json.endObject()
    }

    /// What `projections run` did for one projector.
    static func caughtUp(_ name: String, handled: Int, checkpoint: Int, format: OutputFormat, to output: OutputWriter) {
        output.result(format, text: "\(name): projected \(handled) events, checkpoint \(checkpoint)") { json in
            json.field("name", name)
            json.field("projected", handled)
            json.field("checkpoint", checkpoint)
        }
    }

    /// What `projections repartition` did for one tracker; `startingAfter`: the position after
    /// which the new parts deliver (`nil`: it had that many parts already).
    static func repartitioned(_ name: String, from old: Int, to new: Int, startingAfter start: Int?, format: OutputFormat, to output: OutputWriter) {
        let text =
            start.map { "\(name): \(old) → \(new) parts, the new parts deliver from position \($0 + 1)" }
            ?? "\(name): already \(new) parts, nothing changed"
        output.result(format, text: text) { json in
            json.field("name", name)
            json.field("from", old)
            json.field("partitions", new)
            json.key("startsAfter")
            if let start { json.int(start) } else { json.null() }
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
