import Deciding
public import FlowLogBasics

/// The JSON faces of SPEC §5: recorded events and a stream's state here, the answers to commands
/// in the command pipeline (`FlowJSON+Answers`).
public enum FlowJSON {
    /// One recorded event with its whole envelope, as `log --format json` and the NDJSON export write it.
    /// `correlationId`, `causationId`, `traceparent` and `tracestate` appear only where set.
    public static func writeEvent(_ record: RecordedEvent, into json: inout JSONWriter) {
        if record.isForgotten {
            writeTombstone(record, into: &json)
            return
        }
        if EventLine.append(record, to: &json) { return }
        writeEventByFragments(record, into: &json)
    }

    /// The same layout, fragment by fragment through the writer, for any event (`EventLine` takes
    /// the ones whose text needs no escaping and fits its buffer).
    package static func writeEventByFragments(_ record: RecordedEvent, into json: inout JSONWriter) {
        // A fixed layout, written as fragments: exports write millions of these.
        json.separate()
        json.raw(#"{"position":"#)
        json.rawInt(record.position)
        json.raw(#","stream":"#)
        json.rawString(record.stream)
        json.raw(#","version":"#)
        json.rawInt(record.version)
        json.raw(#","eventId":"#)
        json.commaBits &= ~1
        json.eventID(record.eventId)
        json.raw(#","type":"#)
        let eventVersion = writeTypeName(record.event, into: &json)
        json.raw(#","actor":"#)
        json.rawString(record.actor.rawValue)
        json.raw(#","timestamp":"#)
        json.commaBits &= ~1
        json.timestamp(record.timestamp)
        json.raw(#","schemaVersion":"#)
        json.rawInt(record.schemaVersion)
        json.raw(#","eventVersion":"#)
        json.rawInt(eventVersion)
        if let correlation = record.correlationId {
            json.raw(#","correlationId":"#)
            json.rawString(correlation)
        }
        if let causation = record.causationId {
            json.raw(#","causationId":"#)
            json.rawString(causation)
        }
        if let trace = record.traceContext {
            json.raw(#","traceparent":"#)
            json.rawString(trace.traceparent)
            if let state = trace.state {
                json.raw(#","tracestate":"#)
                json.rawString(state)
            }
        }
        json.raw(#","data":"#)
        json.commaBits &= ~1
        writeEventData(record.event, into: &json)
        json.raw("}")
    }

    /// A forgotten event (`flowlog forget`): what the log still holds of it, and `"forgotten":true`
    /// instead of a stream, ids and data. `import` reads it back into a forgotten record.
    static func writeTombstone(_ record: RecordedEvent, into json: inout JSONWriter) {
        json.separate()
        json.raw(#"{"position":"#)
        json.rawInt(record.position)
        json.raw(#","version":"#)
        json.rawInt(record.version)
        json.raw(#","eventId":"#)
        json.commaBits &= ~1
        json.eventID(record.eventId)
        json.raw(#","type":"#)
        json.rawString(record.event.typeName)
        json.raw(#","actor":"#)
        json.rawString(record.actor.rawValue)
        json.raw(#","timestamp":"#)
        json.commaBits &= ~1
        json.timestamp(record.timestamp)
        json.raw(#","schemaVersion":"#)
        json.rawInt(record.schemaVersion)
        json.raw(#","forgotten":true}"#)
    }

    public static func event(_ record: RecordedEvent) -> String {
        var json = JSONWriter()
        writeEvent(record, into: &json)
        return json.text
    }

    /// An event's own fields (`data` in exports), every declared field in its declared order,
    /// `null` for an absent optional one.
    ///
    /// `asStored`: the fields of the version the event's record is stored in (the lowest version
    /// that holds it), as PostgreSQL's `data` column keeps them beside the record.
    public static func writeEventData(_ event: LogDecider.Event, asStored: Bool = false, into json: inout JSONWriter) {
        withUnsafeMutablePointer(to: &json) { pointer in
            var writer = EventDataWriter(json: pointer, asStored: asStored)
            try! event.visitPayload(&writer)
        }
    }

    /// The event's type name as a JSON string, straight from its declaration; answers its kind's
    /// version, found in the same visit.
    @inline(__always) @discardableResult
    static func writeTypeName(_ event: LogDecider.Event, into json: inout JSONWriter) -> Int {
        withUnsafeMutablePointer(to: &json) { pointer in
            var writer = TypeNameWriter(json: pointer)
            try! event.visitPayload(&writer)
            return writer.version
        }
    }

    private struct TypeNameWriter: EventPayloadVisitor {
        let json: UnsafeMutablePointer<JSONWriter>
        var version = 1
        @inline(__always)
        mutating func visit<Payload: EventPayload>(_ payload: Payload) {
            let declaration = Payload.declaration
            json.pointee.rawName(declaration.typeName)
            version = declaration.version
        }
    }

    /// Writes through a pointer, so the writer's buffer is never copied into the visitor.
    private struct EventDataWriter: EventPayloadVisitor, FieldVisitor {
        let json: UnsafeMutablePointer<JSONWriter>
        let asStored: Bool

        mutating func visit<Payload: EventPayload>(_ payload: Payload) {
            json.pointee.beginObject()
            if asStored {
                _ = try! payload.visitLowestVersion(&self)
            } else {
                var fields = payload
                try! fields.visitFields(&self)
            }
            json.pointee.endObject()
        }

        mutating func visit(_ field: Field, _ value: inout String) {
            json.pointee.key(field.name)
            json.pointee.string(value)
        }
        mutating func visit(_ field: Field, _ value: inout String?) {
            json.pointee.key(field.name)
            json.pointee.string(value)
        }
        mutating func visit(_ field: Field, _ value: inout Int) {
            json.pointee.key(field.name)
            json.pointee.int(value)
        }
        mutating func visit(_ field: Field, _ value: inout Int?) {
            json.pointee.key(field.name)
            if let value { json.pointee.int(value) } else { json.pointee.null() }
        }
        mutating func visit(_ field: Field, _ value: inout Bool) {
            json.pointee.key(field.name)
            json.pointee.bool(value)
        }
    }
}
