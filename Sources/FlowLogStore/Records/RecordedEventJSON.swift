import Deciding
import FlowLogBasics
import FlowLogSystem

/// Reads one line of an NDJSON export (SPEC §5's envelope, as `FlowJSON.writeEvent` writes it) back
/// into a recorded event, checking every field as strictly as the command line checks commands.
public enum RecordedEventJSON {
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        /// The line is sound but names a type, or a version of one, that this build does not know:
        /// written by a newer FlowLog (or garbage that looks like it). A device keeps such events
        /// until the server is upgraded; an ingest answers 422 rather than 400.
        public var isUnknownKind = false
        public var description: String { message }

        init(message: String, isUnknownKind: Bool = false) { (self.message, self.isUnknownKind) = (message, isUnknownKind) }
    }

    /// Decodes one line. Members may come in any order; for a repeated member the last counts;
    /// `null` means absent; unknown members are ignored (but must be valid JSON).
    public static func decode(_ line: UnsafeRawBufferPointer) throws(Problem) -> RecordedEvent {
        do {
            return try scan(line)
        } catch let syntax as JSONSyntaxError {
            throw Problem(message: "it is not valid JSON (\(syntax))")
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(message: "\(error)")
        }
    }

    @inline(__always)
    private static func scan(_ line: UnsafeRawBufferPointer) throws -> RecordedEvent {
        if let record = canonical(line) { return record }
        return try general(line)
    }

    /// Any valid layout: members in any order, whitespace, `null` for absent, unknown members.
    package static func general(_ line: UnsafeRawBufferPointer) throws -> RecordedEvent {
        var scanner = JSONScanner(line)
        guard scanner.peek() == UInt8(ascii: "{") else { throw Problem(message: "it is not a JSON object") }
        try scanner.beginObject()
        var position: Int?
        var version: Int?
        var schemaVersion: Int?
        var eventVersion: Int?
        var stream: String?
        var correlationId: String?
        var causationId: String?
        var traceparent: [UInt8]?
        var tracestate: String?
        var eventId: EventID?
        var timestamp: Timestamp?
        var actor: Actor?
        var kind: LogDecider.Event.Kind?
        var typeText: String?
        var data: [(String, JSONValue)]?
        var forgotten = false
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            if key.equals("position") {
                position = try integer(&scanner, "position")
            } else if key.equals("stream") {
                stream = try identifier(&scanner, "stream")
            } else if key.equals("version") {
                version = try integer(&scanner, "version")
            } else if key.equals("eventId") {
                guard let raw = scanner.plainStringBytes(), let id = EventID.parse(raw) else { throw Problem(message: "\"eventId\" is not a UUID") }
                eventId = id
            } else if key.equals("type") {
                guard let raw = scanner.plainStringBytes() else { throw Problem(message: "\"type\" must be a string") }
                kind = Self.kind(typeName: raw)
                typeText = kind == nil ? String(decoding: raw.prefix(60), as: UTF8.self) : nil
            } else if key.equals("actor") {
                let raw = scanner.plainStringBytes()
                actor = raw.map { $0.equals("user") ? .user : $0.equals("system") ? .system : nil } ?? nil
                guard actor != nil else { throw Problem(message: "\"actor\" must be \"user\" or \"system\"") }
            } else if key.equals("timestamp") {
                guard let raw = scanner.plainStringBytes(),
                    let parsed = Timestamp.parseRFC3339(raw)
                else { throw Problem(message: "\"timestamp\" is not an RFC 3339 time such as 2026-11-21T13:25:17.123456Z") }
                timestamp = parsed
            } else if key.equals("schemaVersion") {
                schemaVersion = scanner.takeNull() ? nil : try integer(&scanner, "schemaVersion")
            } else if key.equals("eventVersion") {
                eventVersion = scanner.takeNull() ? nil : try integer(&scanner, "eventVersion")
            } else if key.equals("correlationId") {
                correlationId = scanner.takeNull() ? nil : try identifier(&scanner, "correlationId")
            } else if key.equals("causationId") {
                causationId = scanner.takeNull() ? nil : try identifier(&scanner, "causationId")
            } else if key.equals("traceparent") {
                if scanner.takeNull() {
                    traceparent = nil
                } else {
                    guard let raw = scanner.plainStringBytes() else { throw Problem(message: "\"traceparent\" must be a string") }
                    traceparent = Array(raw)
                }
            } else if key.equals("tracestate") {
                if scanner.takeNull() {
                    tracestate = nil
                } else {
                    guard let text = try scanner.string() else { throw Problem(message: "\"tracestate\" must be a string") }
                    tracestate = text
                }
            } else if key.equals("forgotten") {
                guard let flag = scanner.takeNull() ? false : scanner.bool() else { throw Problem(message: "\"forgotten\" must be true or false") }
                forgotten = flag
            } else if key.equals("data") {
                guard case .object(let members) = try scanner.value() else { throw Problem(message: "\"data\" must be an object") }
                data = members
            } else {
                _ = try scanner.value()
            }
        }
        guard scanner.atEnd() else { throw JSONSyntaxError(offset: scanner.offset, reason: "unexpected text after the JSON value") }
        guard let position else { throw Problem(message: "\"position\" is missing") }
        guard countRange.contains(position) else { throw outOfRange("position", String(position)) }
        if forgotten {
            return try tombstone(
                position: position, version: version, eventId: eventId, actor: actor, timestamp: timestamp, kind: kind,
                typeText: typeText,
                carriesData: stream != nil || data != nil || correlationId != nil || causationId != nil || traceparent != nil || tracestate != nil)
        }
        guard let stream else { throw Problem(message: "\"stream\" is missing") }
        guard let version else { throw Problem(message: "\"version\" is missing") }
        guard countRange.contains(version) else { throw outOfRange("version", String(version)) }
        guard let eventId else { throw Problem(message: "\"eventId\" is missing") }
        guard let actor else { throw Problem(message: "\"actor\" is missing") }
        guard let timestamp else { throw Problem(message: "\"timestamp\" is missing") }
        guard let kind else {
            throw Problem(
                message: typeText.map {
                    "\"type\" \"\($0)\" is not an event type; the types are \(LogDecider.Event.kinds.typeNames.joined(separator: ", "))"
                }
                    ?? "\"type\" is missing",
                isUnknownKind: typeText != nil)
        }
        let schema = schemaVersion ?? RecordCodec.currentSchemaVersion
        guard (1...RecordCodec.currentSchemaVersion).contains(schema) else {
            throw Problem(message: "\"schemaVersion\" \(schema) is not one this FlowLog reads (1 through \(RecordCodec.currentSchemaVersion))")
        }
        guard let data else { throw Problem(message: "\"data\" must be an object") }
        var traceContext: TraceContext?
        if let traceparent {
            traceContext = try traceparent.withUnsafeBytes { try Self.traceContext($0, state: tracestate) }
        } else if tracestate != nil {
            throw Problem(message: "\"tracestate\" comes only with a \"traceparent\"")
        }
        return RecordedEvent(
            position: position, stream: stream, version: version, eventId: eventId, timestamp: timestamp,
            actor: actor, correlationId: correlationId, causationId: causationId, traceContext: traceContext,
            schemaVersion: schema, event: try event(kind, version: eventVersion ?? 1, data))
    }

    /// A forgotten event as `export` writes it (`FlowJSON.writeTombstone`): its envelope without a
    /// stream, ids or data, which it must not carry.
    private static func tombstone(
        position: Int, version: Int?, eventId: EventID?, actor: Actor?, timestamp: Timestamp?,
        kind: LogDecider.Event.Kind?, typeText: String?, carriesData: Bool
    ) throws -> RecordedEvent {
        guard !carriesData else {
            throw Problem(
                message:
                    "a forgotten event (\"forgotten\": true) carries no \"stream\", \"correlationId\", \"causationId\", \"traceparent\", \"tracestate\" or \"data\""
            )
        }
        guard let version, countRange.contains(version) else { throw Problem(message: "\"version\" is missing or out of range") }
        guard let eventId else { throw Problem(message: "\"eventId\" is missing") }
        guard let actor else { throw Problem(message: "\"actor\" is missing") }
        guard let timestamp else { throw Problem(message: "\"timestamp\" is missing") }
        guard let kind else {
            throw Problem(message: typeText.map { "\"type\" \"\($0)\" is not an event type" } ?? "\"type\" is missing")
        }
        return RecordedEvent(forgottenAt: position, version: version, eventId: eventId, timestamp: timestamp, actor: actor, kind: kind)
    }

    static func integer(_ scanner: inout JSONScanner, _ name: String) throws -> Int {
        if let value = scanner.integer() { return value }
        if case .bigInteger(let digits) = try scanner.value() { throw outOfRange(name, digits) }
        throw Problem(message: "\"\(name)\" must be an integer")
    }

    /// What a position or a stream version may be: 1 through 2^53 − 1, which every JSON reader
    /// takes exactly (SPEC §5).
    static let countRange = 1...FieldType.largestExactInteger

    static func outOfRange(_ name: String, _ digits: String) -> Problem {
        let shown = digits.count > 40 ? String(digits.prefix(40)) + "…" : digits
        return Problem(message: "\"\(name)\" \(shown) is out of range; a \(name) is 1 through \(FieldType.largestExactInteger)")
    }

    /// Free text (a name, a reason): a string of at most 65,535 UTF-8 bytes, as records store it.
    static func freeText(_ scanner: inout JSONScanner, _ name: String) throws -> String {
        guard let value = try scanner.string() else { throw Problem(message: "\"\(name)\" must be a string") }
        guard value.utf8.count <= Int(UInt16.max) else { throw Problem(message: "\"\(name)\" is longer than 65,535 bytes") }
        return value
    }

    /// An event's trace context, checked as strictly as every other member: a `traceparent` as W3C
    /// writes it, a `tracestate` of at most 512 printable ASCII bytes.
    static func traceContext(_ traceparent: UnsafeRawBufferPointer, state: String?) throws -> TraceContext {
        guard let context = TraceContext(traceparentBytes: traceparent, tracestate: state) else {
            throw Problem(
                message: "\"traceparent\" is not a W3C traceparent such as 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 (lowercase hex)")
        }
        // The context drops a `tracestate` it would not keep; an import refuses the line instead.
        guard state == nil || context.state != nil else {
            throw Problem(message: "\"tracestate\" must be 1 to \(TraceContext.maximumStateLength) characters of printable ASCII")
        }
        return context
    }

    static func identifier(_ scanner: inout JSONScanner, _ name: String) throws -> String {
        guard let raw = scanner.plainStringBytes(), raw.count >= 1, raw.count <= Identifier.maximumLength, raw.allSatisfy(Identifier.isAllowed) else {
            throw Problem(message: "\"\(name)\" is not an identifier (1 to 64 of A-Z a-z 0-9 . _ : -)")
        }
        return String(decoding: raw, as: UTF8.self)
    }

    /// An event's `data` members, read by name for the kind's declared fields: any order, the last
    /// of a repeated member, `null` for absent, unknown members ignored.
    ///
    /// Events are facts: a value today's rules would refuse (a 150% discount an older build let
    /// through) is still read, so that replay and bisect can show what it did. Types and
    /// identifiers are checked.
    ///
    /// `version` is the line's `eventVersion` (1 where it has none: every export written before
    /// event versions); an earlier version is upcast, a newer one is refused.
    private static func event(_ kind: LogDecider.Event.Kind, version: Int, _ data: [(String, JSONValue)]) throws -> LogDecider.Event {
        var reader = NamedDataReader(members: data, eventVersion: version)
        do {
            return try LogDecider.Event.decode(kind, &reader)
        } catch let unknown as UnknownEventVersion {
            throw Problem(message: "\"eventVersion\" \(version): \(unknown)", isUnknownKind: true)
        }
    }

    private struct NamedDataReader: PayloadDecoder, FieldVisitor {
        let members: [(String, JSONValue)]
        let eventVersion: Int?

        private func lookup(_ field: Field) -> JSONValue? {
            let name = field.nameText
            guard let value = members.last(where: { $0.0 == name })?.1 else { return nil }
            if case .null = value { return nil }
            return value
        }

        private func string(_ field: Field, _ value: JSONValue) throws -> String {
            guard case .string(let text) = value else {
                if field.type.form == .identifier {
                    throw Problem(message: "\"\(field.name)\" is not an identifier (1 to 64 of A-Z a-z 0-9 . _ : -)")
                }
                throw Problem(message: "\"\(field.name)\" must be a string")
            }
            if field.type.form == .identifier {
                guard Identifier.isValid(text) else {
                    throw Problem(message: "\"\(field.name)\" is not an identifier (1 to 64 of A-Z a-z 0-9 . _ : -)")
                }
            } else if text.utf8.count > Int(UInt16.max) {
                throw Problem(message: "\"\(field.name)\" is longer than 65,535 bytes")
            }
            do { return try field.recorded(text) } catch { throw Problem(message: error.description) }
        }

        private func integer(_ field: Field, _ value: JSONValue) throws -> Int {
            switch value {
            case .integer(let number):
                do { return try field.recorded(number) } catch { throw Problem(message: error.description) }
            case .bigInteger(let digits):
                throw Problem(message: RecordedValueOutOfRange(field: field.nameText, value: digits, type: field.type).description)
            default:
                throw Problem(message: "\"\(field.name)\" must be an integer")
            }
        }

        private func missing(_ field: Field) -> Problem { Problem(message: "\"\(field.name)\" is missing") }

        mutating func visit(_ field: Field, _ value: inout String) throws {
            guard let member = lookup(field) else { throw missing(field) }
            value = try string(field, member)
        }

        mutating func visit(_ field: Field, _ value: inout String?) throws {
            value = try lookup(field).map { try string(field, $0) }
        }

        mutating func visit(_ field: Field, _ value: inout Int) throws {
            guard let member = lookup(field) else { throw missing(field) }
            value = try integer(field, member)
        }

        mutating func visit(_ field: Field, _ value: inout Int?) throws {
            value = try lookup(field).map { try integer(field, $0) }
        }

        mutating func visit(_ field: Field, _ value: inout Bool) throws {
            guard let member = lookup(field) else { throw missing(field) }
            guard case .bool(let flag) = member else { throw Problem(message: "\"\(field.name)\" must be true or false") }
            value = flag
        }
    }
}
