import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogProjections
import FlowLogStore

/// What `flowlog demo --format json` prints: one object a step of the script, then one for the end.
enum DemoJSON {
    /// `{"step","command","answer","events","trackerCalls","view"}`: the command in wire form, its
    /// answer as `send` gives it, the events it appended (full envelopes), each service's call for
    /// them and what the screen shows after it.
    static func step(
        number: Int, envelope: CommandEnvelope, outcome: CommandOutcome, recorded: [RecordedEvent], calls: [(service: String, call: String)],
        after: FlowState, version: Int, into json: inout JSONWriter
    ) {
        json.beginObject()
        json.key("step")
        json.int(number)
        json.key("command")
        WireCommand.encode(envelope, into: &json)
        json.key("answer")
        FlowJSON.writeAnswer(outcome, into: &json)
        json.key("events")
        json.beginArray()
        for record in recorded { FlowJSON.writeEvent(record, into: &json) }
        json.endArray()
        json.key("trackerCalls")
        json.beginArray()
        for call in calls {
            json.beginObject()
            json.key("service")
            json.string(call.service)
            // The tracker wrote the message with a JSONWriter; it goes in as the value it is.
            json.key("call")
            if let value = try? JSONParser.parse(call.call) { json.value(value) } else { json.null() }
            json.endObject()
        }
        json.endArray()
        json.key("view")
        ViewProjector.writeJSON(
            cart: ViewProjector.cart(after), screen: ViewProjector.screen(after.navigation), stream: envelope.stream,
            version: version, into: &json)
        json.endObject()
    }

    /// A projector after the demo: its checkpoint, or the process that runs it.
    enum ProjectorResult {
        case caughtUp(checkpoint: Int)
        case runBy(pid: Int32?)
    }

    /// `{"stream","log","events","state","projections","trackerFolder"}`.
    static func summary(
        stream: String, log: String, events: Int, state: FlowState, version: Int,
        projectors: [(name: String, result: ProjectorResult)], trackerFolder: String, into json: inout JSONWriter
    ) {
        json.beginObject()
        json.key("stream")
        json.string(stream)
        json.key("log")
        json.string(log)
        json.key("events")
        json.int(events)
        json.key("state")
        FlowJSON.writeState(state, stream: stream, version: version, into: &json)
        json.key("projections")
        json.beginArray()
        for projector in projectors {
            json.beginObject()
            json.key("name")
            json.string(projector.name)
            switch projector.result {
            case .caughtUp(let checkpoint):
                json.key("checkpoint")
                json.int(checkpoint)
            case .runBy(let pid):
                json.key("runBy")
                if let pid { json.int(Int(pid)) } else { json.null() }
            }
            json.endObject()
        }
        json.endArray()
        json.key("trackerFolder")
        json.string(trackerFolder)
        json.endObject()
    }
}
