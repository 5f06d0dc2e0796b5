import FlowLogHistory
import FlowLogStore

/// What `flowlog bisect` found: the first bad event with the states around it, the candidates
/// skipped versions leave, or that there is nothing to bisect.
enum BisectRendering {
    /// `--list-invariants`: each built-in check with what it asks of a state (and `all`, in text).
    static func invariants(format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            for invariant in LogDecider.invariants {
                output.json { json in
                    json.object { json in
                        json.field("name", invariant.name)
                        json.field("summary", invariant.summary)
                    }
                }
            }
        case .text:
            for invariant in LogDecider.invariants { output.line("\(TextPadding.pad(invariant.name, 22)) \(invariant.summary)") }
            output.line("\(TextPadding.pad("all", 22)) every invariant above")
        }
    }

    static func finalStateIsGood(stream: String, version: Int, reconstructions: Int, format: OutputFormat, to output: OutputWriter) {
        output.result(format, text: "The final state of \(stream) (version \(version)) passes the check: nothing to bisect.") { json in
            json.field("found", false)
            json.field("stream", stream)
            json.field("version", version)
            json.field("reconstructions", reconstructions)
        }
    }

    static func finalStateSkipped(stream: String, version: Int, reconstructions: Int, format: OutputFormat, to output: OutputWriter) {
        output.result(
            format,
            text: "The check skipped the final state of \(stream) (version \(version), exit 125), so nothing is known to be bad: nothing to bisect."
        ) { json in
            json.field("found", false)
            json.field("undecided", true)
            json.field("stream", stream)
            json.field("version", version)
            json.field("candidates", [Int]())
            json.field("skipped", [version])
            json.field("reconstructions", reconstructions)
        }
    }

    /// Skipped versions hide which candidate is the first bad one: all of them are listed.
    static func undecided(
        candidates: ClosedRange<Int>, events: [RecordedEvent], stream: String, reconstructions: Int,
        format: OutputFormat, to output: OutputWriter
    ) {
        let skipped = Array(candidates.dropLast())
        switch format {
        case .json:
            output.json { json in
                json.object { json in
                    json.field("found", false)
                    json.field("undecided", true)
                    json.field("stream", stream)
                    json.field("candidates", Array(candidates))
                    json.field("skipped", skipped)
                    json.field("reconstructions", reconstructions)
                    json.key("events")
                    json.array(events) { json, event in FlowJSON.writeEvent(event, into: &json) }
                }
            }
        case .text:
            let names = skipped.map(String.init).joined(separator: ", ")
            output.line(
                "The first bad event of \(stream) is one of versions \(candidates.lowerBound) through \(candidates.upperBound): the check skipped version\(skipped.count == 1 ? "" : "s") \(names) (exit 125), so bisect cannot tell which (\(reconstructions) state reconstructions). Version \(candidates.lowerBound - 1) is good and version \(candidates.upperBound) is bad."
            )
            for event in events {
                output.line(
                    "  #\(event.position) v\(event.version) \(EventText.summary(event.event)) (\(event.actor.rawValue), \(event.timestamp.rfc3339))")
            }
        }
    }

    /// The culprit, why it is bad, the states before and after it, and what it changed.
    static func found(_ culprit: Bisector.Culprit, stream: String, reason: String, format: OutputFormat, to output: OutputWriter) {
        let record = culprit.record
        let changes = StateDiff.changes(from: culprit.before, to: culprit.after)
        switch format {
        case .json:
            output.json { json in
                json.object { json in
                    json.field("found", true)
                    json.field("reason", reason)
                    json.field("reconstructions", culprit.reconstructions)
                    json.key("event")
                    FlowJSON.writeEvent(record, into: &json)
                    json.key("before")
                    FlowJSON.writeState(culprit.before, stream: stream, version: record.version - 1, into: &json)
                    json.key("after")
                    FlowJSON.writeState(culprit.after, stream: stream, version: record.version, into: &json)
                    json.key("changes")
                    json.array(changes) { json, change in StateDiff.write(change, into: &json) }
                }
            }
        case .text:
            output.line(
                "The first bad event of \(stream) is #\(record.position) (version \(record.version)), found in \(culprit.reconstructions) state reconstructions:"
            )
            output.line("  \(EventText.summary(record.event)) (\(record.actor.rawValue), \(record.timestamp.rfc3339), event id \(record.eventId))")
            output.line("Why it is bad: \(reason)")
            output.line("")
            output.line("State before (version \(record.version - 1)):")
            output.lines(StateText.lines(culprit.before, stream: stream, version: record.version - 1))
            output.line("")
            output.line("State after (version \(record.version)):")
            output.lines(StateText.lines(culprit.after, stream: stream, version: record.version))
            output.line("")
            output.line("What it changed:")
            output.lines(changes.isEmpty ? ["  (nothing)"] : changes.map { "  " + StateDiff.render($0) })
        }
    }
}
