import Deciding
import FlowLogBasics
import FlowLogSystem

/// The fast half of `RecordedEventJSON`: a line exactly as `FlowJSON.writeEvent` writes it.
extension RecordedEventJSON {
    /// A line in the layout `FlowJSON.writeEvent` writes (members in its order, no whitespace),
    /// read by matching that layout instead of looking each member up by name: most lines an
    /// import meets are exports. Anything else — another order, whitespace, `null`, an unknown
    /// member, a value that breaks a rule — gives `nil`, and `general` reads the line (and names
    /// what is wrong with it). Every field is checked by the same code as in `general`, so a line
    /// read here reads the same there (`RecordedEventJSONTests` checks that over mutated lines).
    package static func canonical(_ line: UnsafeRawBufferPointer) -> RecordedEvent? {
        var scanner = JSONScanner(line)
        func identifier() -> String? { try? Self.identifier(&scanner, "") }
        guard scanner.literal(#"{"position":"#), let position = scanner.integer(), countRange.contains(position),
            scanner.literal(#","stream":"#), let stream = identifier(),
            scanner.literal(#","version":"#), let version = scanner.integer(), countRange.contains(version),
            scanner.literal(#","eventId":"#), let eventId = scanner.fixedLengthString(36, EventID.parse),
            scanner.literal(#","type":"#), let rawType = scanner.plainStringBytes(), let kind = kind(typeName: rawType),
            scanner.literal(#","actor":"#), let rawActor = scanner.plainStringBytes(),
            let actor: Actor = rawActor.equals("user") ? .user : rawActor.equals("system") ? .system : nil,
            scanner.literal(#","timestamp":"#), let timestamp = scanner.fixedLengthString(Timestamp.exportedLength, Timestamp.parseRFC3339),
            scanner.literal(#","schemaVersion":"#), let schema = scanner.integer(), (1...RecordCodec.currentSchemaVersion).contains(schema)
        else { return nil }
        // Exports written before event versions have none: their events are version 1.
        var eventVersion = 1
        if scanner.literal(#","eventVersion":"#) {
            guard let version = scanner.integer() else { return nil }
            eventVersion = version
        }
        var correlationId: String?
        var causationId: String?
        if scanner.literal(#","correlationId":"#) {
            guard let id = identifier() else { return nil }
            correlationId = id
        }
        if scanner.literal(#","causationId":"#) {
            guard let id = identifier() else { return nil }
            causationId = id
        }
        var traceContext: TraceContext?
        if scanner.literal(#","traceparent":"#) {
            guard let traceparent = scanner.plainStringBytes() else { return nil }
            var state: String?
            if scanner.literal(#","tracestate":"#) {
                guard let raw = scanner.plainStringBytes() else { return nil }
                state = String(decoding: raw, as: UTF8.self)
            }
            guard let context = try? Self.traceContext(traceparent, state: state) else { return nil }
            traceContext = context
        }
        guard scanner.literal(#","data":"#), let event = canonicalData(kind, version: eventVersion, &scanner), scanner.literal("}"), scanner.atEnd()
        else { return nil }
        return RecordedEvent(
            position: position, stream: stream, version: version, eventId: eventId, timestamp: timestamp,
            actor: actor, correlationId: correlationId, causationId: causationId, traceContext: traceContext,
            schemaVersion: schema, event: event)
    }

    /// An event's `data` in the layout `FlowJSON.writeEventData` writes for its kind (its declared
    /// fields in order, `null` for an absent optional one), checked by the same helpers as the
    /// general reader; `nil` for anything else.
    private static func canonicalData(_ kind: LogDecider.Event.Kind, version: Int, _ scanner: inout JSONScanner) -> LogDecider.Event? {
        var reader = CanonicalDataReader(scanner: scanner, eventVersion: version)
        guard let event = try? LogDecider.Event.decode(kind, &reader) else { return nil }
        scanner = reader.scanner
        return event
    }

    /// The kind an event type name (as bytes) names: an import looks one up for every line.
    static func kind(typeName: UnsafeRawBufferPointer) -> LogDecider.Event.Kind? {
        for (index, name) in typeNameBytes.enumerated()
        where name.count == typeName.count && name.withUnsafeBytes({ memcmp($0.baseAddress!, typeName.baseAddress!, name.count) == 0 }) {
            return LogDecider.Event.kinds.all[index].kind
        }
        return nil
    }

    static let typeNameBytes: [[UInt8]] = LogDecider.Event.kinds.all.map { Array($0.typeName.utf8) }

    /// Not the layout this reader matches: the general reader takes over.
    struct Mismatch: Error {}

    private struct CanonicalDataReader: PayloadDecoder, FieldVisitor {
        var scanner: JSONScanner
        let eventVersion: Int?
        private var first = true

        init(scanner: JSONScanner, eventVersion: Int) { (self.scanner, self.eventVersion) = (scanner, eventVersion) }

        mutating func payload<Payload: KindPayload>(_ type: Payload.Type) throws -> Payload {
            var payload = Payload()
            try payload.visitFields(&self)
            guard scanner.literal(first ? "{}" : "}") else { throw Mismatch() }
            return payload
        }

        private mutating func member(_ field: Field) throws {
            guard scanner.literal(first ? "{\"" : ",\""), scanner.literal(field.name), scanner.literal("\":") else { throw Mismatch() }
            first = false
        }

        private mutating func string(_ field: Field) throws -> String {
            let read =
                field.type.form == .identifier ? try? RecordedEventJSON.identifier(&scanner, "") : try? RecordedEventJSON.freeText(&scanner, "")
            guard let read else { throw Mismatch() }
            return try field.recorded(read)
        }

        mutating func visit(_ field: Field, _ value: inout String) throws {
            try member(field)
            value = try string(field)
        }

        mutating func visit(_ field: Field, _ value: inout String?) throws {
            try member(field)
            value = scanner.literal("null") ? nil : try string(field)
        }

        mutating func visit(_ field: Field, _ value: inout Int) throws {
            try member(field)
            guard let read = scanner.integer() else { throw Mismatch() }
            value = try field.recorded(read)
        }

        mutating func visit(_ field: Field, _ value: inout Int?) throws {
            try member(field)
            if scanner.literal("null") {
                value = nil
                return
            }
            guard let read = scanner.integer() else { throw Mismatch() }
            value = try field.recorded(read)
        }

        mutating func visit(_ field: Field, _ value: inout Bool) throws {
            try member(field)
            guard let read = scanner.bool() else { throw Mismatch() }
            value = read
        }
    }
}
