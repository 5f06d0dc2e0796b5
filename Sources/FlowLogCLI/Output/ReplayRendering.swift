import FlowLogBasics
import FlowLogHistory
import FlowLogStore

/// Replayed events with the changes each made, and replayed states (`flowlog replay`).
enum ReplayRendering {
    /// `#POSITION STREAM vVERSION TYPE DATA (actor, time)`, then one line per change.
    static func text(_ step: Replayer.Step) -> [String] {
        let record = step.record
        var lines = [
            "#\(record.position) \(record.stream) v\(record.version) \(EventText.summary(record.event)) (\(record.actor.rawValue), \(record.timestamp.rfc3339))"
        ]
        let changes = StateDiff.changes(from: step.before, to: step.after)
        if changes.isEmpty { lines.append("    (no change)") }
        for change in changes { lines.append("    " + StateDiff.render(change)) }
        return lines
    }

    /// One object per event: its envelope without ids, its data and its `changes`.
    static func json(_ step: Replayer.Step, into json: inout JSONWriter) {
        json.beginObject()
        json.key("position")
        json.int(step.record.position)
        json.key("stream")
        json.string(step.record.stream)
        json.key("version")
        json.int(step.record.version)
        json.key("type")
        json.string(step.record.event.typeName)
        json.key("actor")
        json.string(step.record.actor.rawValue)
        json.key("timestamp")
        json.timestamp(step.record.timestamp)
        json.key("data")
        FlowJSON.writeEventData(step.record.event, into: &json)
        json.key("changes")
        json.beginArray()
        for change in StateDiff.changes(from: step.before, to: step.after) { StateDiff.write(change, into: &json) }
        json.endArray()
        json.endObject()
    }

    /// A stream's final state (`--summary`): a line of text, or the state's JSON face.
    static func summary(_ state: LogDecider.State, stream: String, version: Int, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json: output.json { FlowJSON.writeState(state, stream: stream, version: version, into: &$0) }
        case .text: output.line("\(stream) v\(version): " + StateText.summary(state))
        }
    }

    static func summaryTotal(events: Int, streams: Int) -> String {
        "replayed \(events) events of \(streams) stream\(streams == 1 ? "" : "s")"
    }
}
