import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogStore

/// Events and recorded events whose kind and every field value the fuzz input chooses: a value from
/// a short list of ones codecs trip on (empty, long, non-ASCII, quoted text; 0, negative, 64-bit
/// extremes), or bytes of the input itself. Events are facts, so these include values today's
/// commands could never produce.
enum FuzzedEvents {
    static func event(_ input: inout FuzzInput) -> AppEvent {
        let kind = EventKinds.all[input.index(EventKinds.all.count)].kind
        var values = FieldValues(input: input)
        // The visitor never throws; a declaration that did would be a bug of its own.
        let event = try! AppEvent.decode(kind, &values)
        input = values.input
        return event
    }

    static func record(_ input: inout FuzzInput, position: Int) -> RecordedEvent {
        let stream = FieldValues.identifier(&input)
        // A stream's versions start at 1, as the writer's contract has it.
        let version = max(1, Int(truncatingIfNeeded: input.uint64() >> 1))
        let eventId = EventID(high: input.uint64(), low: input.uint64())
        let timestamp = Timestamp(microseconds: Int64(bitPattern: input.uint64()))
        let actor: Actor = input.bool() ? .user : .system
        let correlation = input.bool() ? FieldValues.identifier(&input) : nil
        let causation = input.bool() ? FieldValues.identifier(&input) : nil
        var trace: TraceContext?
        if input.bool() {
            let states = [nil, "congo=t61rcWkgMzE", "a=1,b=2", String(repeating: "s", count: TraceContext.maximumStateLength), "q\"uote\\"]
            trace = TraceContext(
                traceHigh: input.uint64(), traceLow: input.uint64(), spanID: input.uint64(), flags: input.byte(),
                state: states[Int(input.byte()) % states.count])
        }
        return RecordedEvent(
            position: position, stream: stream, version: version, eventId: eventId, timestamp: timestamp,
            actor: actor, correlationId: correlation, causationId: causation, traceContext: trace, event: event(&input))
    }

    private struct FieldValues: PayloadDecoder, FieldVisitor {
        var input: FuzzInput

        static let identifiers = ["p1", "A", "x.y_z:1-2", String(repeating: "i", count: Identifier.maximumLength), "default"]
        static let texts = ["", "Mug", "Tee, \"quoted\"\nline", "Crème brûlée ☕️", " padded ", "a\r\nb", String(repeating: "long ", count: 40)]
        static let integers = [0, 1, 999, -1, 100_000_000, 100_000_001, Int.max, Int.min, Int(Int32.max), -(1 << 53)]

        /// The characters of an identifier (SPEC §1): stored events hold only valid ones, so the
        /// writer's contract (1 to 64 of these) is kept, and the bytes choose among them.
        static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-".utf8)

        static func identifier(_ input: inout FuzzInput) -> String {
            if input.bool() { return identifiers[input.index(identifiers.count)] }
            let bytes = input.chunk().prefix(Identifier.maximumLength).map { alphabet[Int($0) % alphabet.count] }
            return bytes.isEmpty ? "p1" : String(decoding: bytes, as: UTF8.self)
        }

        static func text(_ input: inout FuzzInput) -> String {
            input.bool() ? texts[input.index(texts.count)] : String(decoding: input.chunk(), as: UTF8.self)
        }

        static func integer(_ input: inout FuzzInput) -> Int {
            input.bool() ? integers[input.index(integers.count)] : Int(truncatingIfNeeded: input.uint64())
        }

        private mutating func string(_ field: Field) -> String {
            field.type.form == .identifier ? Self.identifier(&input) : Self.text(&input)
        }

        mutating func visit(_ field: Field, _ value: inout String) { value = string(field) }
        mutating func visit(_ field: Field, _ value: inout String?) { value = input.bool() ? string(field) : nil }
        mutating func visit(_ field: Field, _ value: inout Int) { value = Self.integer(&input) }
        mutating func visit(_ field: Field, _ value: inout Int?) { value = input.bool() ? Self.integer(&input) : nil }
        mutating func visit(_ field: Field, _ value: inout Bool) { value = input.bool() }
    }
}

/// One supply of record salts for the whole run: a new one reads 64 KB from the kernel, which cost
/// most of an input's time. Where a salt matters the targets overwrite it from the input; fuzzing
/// runs one input at a time, on one thread.
enum FuzzSalts {
    nonisolated(unsafe) static var supply = RecordSalts()
}
