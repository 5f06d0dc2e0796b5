public import Deciding
public import FlowLogBasics
import FlowLogStore

/// A line that could not become a command: the rejection, and the stream it named, if it named one.
public struct WireRejection: Error, Equatable, Sendable {
    public var stream: String?
    public var rejection: Rejection
}

/// SPEC §2's wire form: one JSON object per line, `type` naming the command, its fields beside it,
/// and the envelope fields `stream`, `id`, `expectedVersion` and `correlationId`.
///
/// Decisions where the spec is silent: a member the command's kind does not declare is
/// `malformedCommand` (a build that ignored `currency` would record a euro cart as dollars), and
/// what a producer wants carried along goes in `meta`, a JSON object of at most 4 KB that FlowLog
/// ignores; `null` for an optional field means the field is absent; for a repeated member the
/// last one counts.
public enum WireCommand {
    /// The envelope's members, which every command may carry beside its kind's fields. A list, not
    /// a set: six small strings compare as integers, where hashing each member cost more.
    public static let envelopeMembers = ["type", "stream", "id", "expectedVersion", "correlationId", "meta"]
    /// The most bytes `meta` may take, as the line writes it.
    public static let maximumMetaBytes = 4_096

    /// Every command type, in SPEC §2's order.
    public static var allTypes: [String] { LogDecider.Command.kinds.typeNames }

    public static func decode(_ line: UnsafeRawBufferPointer) -> Result<CommandEnvelope, WireRejection> {
        if let envelope = decodeCommonForm(line) { return .success(envelope) }
        return decodeGenerally(line)
    }

    /// Any line, through a `JSONValue` tree: what accepts every form the spec allows, and words
    /// every rejection.
    static func decodeGenerally(_ line: UnsafeRawBufferPointer) -> Result<CommandEnvelope, WireRejection> {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            return .failure(
                WireRejection(
                    stream: nil, rejection: Rejection(.malformedCommand, "The line is not valid JSON (\(error)); send one JSON object per line.")))
        }
        return decode(value)
    }

    public static func decode(_ text: String) -> Result<CommandEnvelope, WireRejection> {
        var copy = text
        return copy.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    public static func decode(_ value: JSONValue) -> Result<CommandEnvelope, WireRejection> {
        guard case .object(let members) = value else {
            return .failure(
                WireRejection(
                    stream: nil,
                    rejection: Rejection(
                        .malformedCommand,
                        "The line is \(value.typeName), not a JSON object; send one object per line, such as {\"type\":\"cart.checkout\"}.")))
        }
        var fields = Fields(members: members)
        do throws(Rejection) {
            let stream = try fields.optional("stream", .text) ?? "default"
            fields.stream = stream
            let typeName = try fields.required("type", .text)
            let commandId = try fields.optional("id", .text)
            if case .bigInteger(let digits)? = fields.lookup("expectedVersion") {
                throw FieldType.integer.outOfRange(digits, role: "expected version")
            }
            let expectedVersion = try fields.optional("expectedVersion", .integer)
            let correlationId = try fields.optional("correlationId", .text)
            let command = try command(typeName, &fields)
            let traceContext = try fields.checkMeta()
            try fields.refuseUndeclared(typeName)
            return .success(
                CommandEnvelope(
                    stream: stream, commandId: commandId, expectedVersion: expectedVersion,
                    correlationId: correlationId, command: command, traceContext: traceContext))
        } catch {
            return .failure(WireRejection(stream: fields.stream, rejection: error))
        }
    }

    /// The command a type names, its fields read as its kind declares them.
    private static func command(_ type: String, _ fields: inout Fields) throws(Rejection) -> LogDecider.Command {
        guard let info = LogDecider.Command.kinds.info(typeName: type) else {
            let shown = type.count > 60 ? String(type.prefix(60)) + "…" : type
            throw Rejection(.unknownCommand, "There is no command type \"\(shown)\"; use one of: \(allTypes.joined(separator: ", ")).")
        }
        do {
            return try LogDecider.Command.decode(info.kind, &fields)
        } catch let rejection as Rejection {
            throw rejection
        } catch {
            throw Rejection(.malformedCommand, "\(error)")
        }
    }

    /// Typed access to an object's members, with the `malformedCommand` sentences.
    private struct Fields: PayloadDecoder, FieldVisitor {
        let members: [(String, JSONValue)]
        var stream: String?
        /// The fields the command's kind declares, as they were read.
        var declared: [String] = []

        init(members: [(String, JSONValue)]) { self.members = members }

        mutating func visit(_ field: Field, _ value: inout String) throws { value = try required(declare(field), .text) }
        mutating func visit(_ field: Field, _ value: inout String?) throws { value = try optional(declare(field), .text) }
        mutating func visit(_ field: Field, _ value: inout Int) throws { value = try required(declareNumber(field), .integer) }
        mutating func visit(_ field: Field, _ value: inout Int?) throws { value = try optional(declareNumber(field), .integer) }
        mutating func visit(_ field: Field, _ value: inout Bool) throws { value = try required(declare(field), .flag) }

        private mutating func declare(_ field: Field) -> String {
            let name = field.nameText
            declared.append(name)
            return name
        }

        /// `declare` for an integer field, refusing a number beyond 64 bits with the field's own
        /// code as it is read: no check after this could hold its value.
        private mutating func declareNumber(_ field: Field) throws(Rejection) -> String {
            let name = declare(field)
            if case .bigInteger(let digits)? = lookup(name) { throw field.type.outOfRange(digits, role: field.role.description) }
            return name
        }

        /// The first member that is neither the envelope's nor a field of the command's kind.
        func refuseUndeclared(_ typeName: String) throws(Rejection) {
            // The kind's fields first, then the envelope's six by comparison: hashing every member
            // into a set of them took a tenth of `send`'s reading thread.
            guard let (name, _) = members.first(where: { !declared.contains($0.0) && !WireCommand.envelopeMembers.contains($0.0) }) else { return }
            let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
            let fields = declared.map { "\"\($0)\"" }
            throw Rejection(
                .malformedCommand,
                "\(typeName) has no member \"\(shown)\" (its fields: \(fields.isEmpty ? "none" : fields.joined(separator: ", "))); remove it, or carry it in \"meta\", a JSON object FlowLog keeps out of the command."
            )
        }

        /// `meta`, where present: an object of at most `maximumMetaBytes` bytes. Returns the trace
        /// context its `traceparent` and `tracestate` strings name; one that is not W3C's is ignored,
        /// as a malformed header is (anything else in `meta` is the producer's own).
        func checkMeta() throws(Rejection) -> TraceContext? {
            guard let meta = lookup("meta") else { return nil }
            guard case .object = meta else { throw wrongType("meta", meta, "a JSON object") }
            var json = JSONWriter()
            json.value(meta)
            let size = json.bytes.count
            guard size <= WireCommand.maximumMetaBytes else {
                throw Rejection(
                    .malformedCommand,
                    "\"meta\" takes \(size) bytes, more than the 4,096 a command may carry; keep it smaller, or send what it holds another way.")
            }
            guard case .string(let traceparent)? = meta["traceparent"] else { return nil }
            guard case .string(let tracestate)? = meta["tracestate"] else { return TraceContext(traceparent: traceparent) }
            return TraceContext(traceparent: traceparent, tracestate: tracestate)
        }

        func lookup(_ name: String) -> JSONValue? {
            guard let value = members.last(where: { $0.0 == name })?.1 else { return nil }
            if case .null = value { return nil }
            return value
        }

        func missing(_ name: String, _ kind: String) -> Rejection {
            Rejection(.malformedCommand, "The command lacks \"\(name)\" (\(kind)); add it.")
        }

        func wrongType(_ name: String, _ value: JSONValue, _ kind: String) -> Rejection {
            // A JSON reader takes 1e2 for a hundred; FlowLog takes integers as written in digits only.
            let advice = if case .number = value { "; write it in digits only, such as 12 (not 12.0 or 1.2e1)" } else { "" }
            return Rejection(.malformedCommand, "\"\(name)\" must be \(kind), not \(value.typeName)\(advice).")
        }

        func optional<Value>(_ name: String, _ expected: Expected<Value>) throws(Rejection) -> Value? {
            guard let value = lookup(name) else { return nil }
            guard let read = expected.read(value) else { throw wrongType(name, value, expected.description) }
            return read
        }

        func required<Value>(_ name: String, _ expected: Expected<Value>) throws(Rejection) -> Value {
            guard let read = try optional(name, expected) else { throw missing(name, expected.description) }
            return read
        }
    }

    /// What a member must hold: how messages describe it, and how to take it from a JSON value.
    fileprivate struct Expected<Value> {
        let description: String
        let read: (JSONValue) -> Value?
    }

    /// The wire form of an envelope: the inverse of `decode`, for scripts and fixtures.
    public static func encode(_ envelope: CommandEnvelope) -> String {
        var json = JSONWriter()
        encode(envelope, into: &json)
        return json.text
    }

    /// Writes the wire form of an envelope into `json`.
    public static func encode(_ envelope: CommandEnvelope, into json: inout JSONWriter) {
        json.beginObject()
        json.key("type")
        json.string(envelope.command.typeName)
        if envelope.stream != "default" {
            json.key("stream")
            json.string(envelope.stream)
        }
        if let id = envelope.commandId {
            json.key("id")
            json.string(id)
        }
        if let expected = envelope.expectedVersion {
            json.key("expectedVersion")
            json.int(expected)
        }
        if let correlation = envelope.correlationId {
            json.key("correlationId")
            json.string(correlation)
        }
        var fields = FieldWriter(json: json)
        try! envelope.command.visitPayload(&fields)
        json = fields.json
        json.endObject()
    }

    /// Writes a command's fields as wire members; an absent optional field is left out.
    private struct FieldWriter: CommandPayloadVisitor, FieldVisitor {
        var json: JSONWriter

        mutating func visit<Payload: CommandPayload>(_ payload: Payload) {
            var fields = payload
            try! fields.visitFields(&self)
        }

        mutating func visit(_ field: Field, _ value: inout String) {
            json.key(field.name)
            json.string(value)
        }
        mutating func visit(_ field: Field, _ value: inout String?) {
            if let value {
                json.key(field.name)
                json.string(value)
            }
        }
        mutating func visit(_ field: Field, _ value: inout Int) {
            json.key(field.name)
            json.int(value)
        }
        mutating func visit(_ field: Field, _ value: inout Int?) {
            if let value {
                json.key(field.name)
                json.int(value)
            }
        }
        mutating func visit(_ field: Field, _ value: inout Bool) {
            json.key(field.name)
            json.bool(value)
        }
    }
}

extension WireCommand.Expected<String> {
    static var text: Self { Self(description: "a string") { if case .string(let text) = $0 { text } else { nil } } }
}

extension WireCommand.Expected<Int> {
    static var integer: Self { Self(description: "an integer") { if case .integer(let number) = $0 { number } else { nil } } }
}

extension WireCommand.Expected<Bool> {
    static var flag: Self { Self(description: "true or false") { if case .bool(let flag) = $0 { flag } else { nil } } }
}
