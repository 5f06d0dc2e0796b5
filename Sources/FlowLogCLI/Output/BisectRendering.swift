import FlowDomain
import FlowLog

/// What `flowlog bisect` found: the first bad event with the states around it, the candidates
/// skipped versions leave, or that there is nothing to bisect.
enum BisectRendering {
    /// `--list-invariants`: each built-in check with what it asks of a state (and `all`, in text).
    static func invariants(format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            for invariant in Invariant.all {
                output.json { json in
                    json.beginObject()
                    json.key("name"); json.string(invariant.name)
                    json.key("summary"); json.string(invariant.summary)
                    json.endObject()
                }
            }
        case .text:
            for invariant in Invariant.all { output.line("\(TextPadding.pad(invariant.name, 22)) \(invariant.summary)") }
            output.line("\(TextPadding.pad("all", 22)) every invariant above")
        }
    }

    static func finalStateIsGood(stream: String, version: Int, reconstructions: Int, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("found"); json.bool(false)
                json.key("stream"); json.string(stream)
                json.key("version"); json.int(version)
                json.key("reconstructions"); json.int(reconstructions)
                json.endObject()
            }
        case .text:
            output.line("The final state of \(stream) (version \(version)) passes the check: nothing to bisect.")
        }
    }

    static func finalStateSkipped(stream: String, version: Int, reconstructions: Int, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("found"); json.bool(false)
                json.key("undecided"); json.bool(true)
                json.key("stream"); json.string(stream)
                json.key("version"); json.int(version)
                json.key("candidates"); json.beginArray(); json.endArray()
                json.key("skipped"); json.beginArray(); json.int(version); json.endArray()
                json.key("reconstructions"); json.int(reconstructions)
                json.endObject()
            }
        case .text:
            output.line("The check skipped the final state of \(stream) (version \(version), exit 125), so nothing is known to be bad: nothing to bisect.")
        }
    }

    /// Skipped versions hide which candidate is the first bad one: all of them are listed.
    static func undecided(candidates: ClosedRange<Int>, events: [RecordedEvent], stream: String, reconstructions: Int,
                          format: OutputFormat, to output: OutputWriter) {
        let skipped = Array(candidates.dropLast())
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("found"); json.bool(false)
                json.key("undecided"); json.bool(true)
                json.key("stream"); json.string(stream)
                json.key("candidates"); json.beginArray(); for version in candidates { json.int(version) }; json.endArray()
                json.key("skipped"); json.beginArray(); for version in skipped { json.int(version) }; json.endArray()
                json.key("reconstructions"); json.int(reconstructions)
                json.key("events"); json.beginArray(); for event in events { FlowJSON.writeEvent(event, into: &json) }; json.endArray()
                json.endObject()
            }
        case .text:
            let names = skipped.map(String.init).joined(separator: ", ")
            output.line("The first bad event of \(stream) is one of versions \(candidates.lowerBound) through \(candidates.upperBound): the check skipped version\(skipped.count == 1 ? "" : "s") \(names) (exit 125), so bisect cannot tell which (\(reconstructions) state reconstructions). Version \(candidates.lowerBound - 1) is good and version \(candidates.upperBound) is bad.")
            for event in events {
                output.line("  #\(event.position) v\(event.version) \(EventText.summary(event.event)) (\(event.actor.rawValue), \(event.timestamp.rfc3339))")
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
                json.beginObject()
                json.key("found"); json.bool(true)
                json.key("reason"); json.string(reason)
                json.key("reconstructions"); json.int(culprit.reconstructions)
                json.key("event"); FlowJSON.writeEvent(record, into: &json)
                json.key("before"); FlowJSON.writeState(culprit.before, stream: stream, version: record.version - 1, into: &json)
                json.key("after"); FlowJSON.writeState(culprit.after, stream: stream, version: record.version, into: &json)
                json.key("changes"); json.beginArray()
                for change in changes { StateDiff.write(change, into: &json) }
                json.endArray()
                json.endObject()
            }
        case .text:
            output.line("The first bad event of \(stream) is #\(record.position) (version \(record.version)), found in \(culprit.reconstructions) state reconstructions:")
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
