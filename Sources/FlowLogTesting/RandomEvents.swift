import Deciding
public import FlowDomain
import FlowLogBasics
public import FlowLogStore

/// Random events of every declared kind, with field values a codec must carry exactly: empty,
/// long and non-ASCII text, identifiers at their limits, integers at both ends of what a recorded
/// event's field may hold (`FieldType.recordedRange`). Events are facts, so these include values
/// today's rules would refuse (a 1,000% discount, tab 99).
public struct RandomEvents {
    public init() {}

    /// One event of `kind`.
    public func event(of kind: AppEvent.Kind, using rng: inout some RandomNumberGenerator) -> AppEvent {
        var values = FieldValues(rng: rng)
        let event = try! AppEvent.decode(kind, &values)
        rng = values.rng
        return event
    }

    /// `samplesEach` events of every declared kind, the same ones every time (a fixed seed): the
    /// list tests use for "every event type", which a new kind joins by being declared.
    public static func everyKind(samplesEach: Int = 2, seed: UInt64 = 1) -> [AppEvent] {
        var rng = SplitMix64(seed: seed)
        let generator = RandomEvents()
        return EventKinds.all.flatMap { info in (0..<samplesEach).map { _ in generator.event(of: info.kind, using: &rng) } }
    }

    /// One event of a kind drawn uniformly from every declared kind.
    public func event(using rng: inout some RandomNumberGenerator) -> AppEvent {
        event(of: EventKinds.all.randomElement(using: &rng)!.kind, using: &rng)
    }

    private struct FieldValues<Generator: RandomNumberGenerator>: PayloadDecoder, FieldVisitor {
        var rng: Generator

        private static var identifiers: [String] { ["p1", "A", "x.y_z:1-2", String(repeating: "i", count: Identifier.maximumLength)] }
        private static var texts: [String] {
            ["", "Mug", "Tee, \"quoted\"\nline", "Crème brûlée ☕️", " padded ", String(repeating: "long ", count: 40)]
        }
        /// The ends of the field's recorded range and values between.
        private static func integers(_ field: Field) -> [Int] {
            let range = field.type.recordedRange ?? 0...0
            return [range.lowerBound, range.lowerBound + 1, min(999, range.upperBound), range.upperBound / 2, range.upperBound]
        }

        private static var currencies: [String] { ["USD", "EUR", "JPY"] }

        private static func strings(_ field: Field) -> [String] {
            switch field.type {
            case .identifier: identifiers
            case .currency: currencies
            default: texts
            }
        }

        mutating func visit(_ field: Field, _ value: inout String) {
            value = Self.strings(field).randomElement(using: &rng)!
        }

        mutating func visit(_ field: Field, _ value: inout String?) {
            value = Bool.random(using: &rng) ? nil : (field.type.form == .identifier ? Self.identifiers : Self.texts).randomElement(using: &rng)!
        }

        mutating func visit(_ field: Field, _ value: inout Int) { value = Self.integers(field).randomElement(using: &rng)! }
        mutating func visit(_ field: Field, _ value: inout Int?) {
            value = Bool.random(using: &rng) ? nil : Self.integers(field).randomElement(using: &rng)!
        }
        mutating func visit(_ field: Field, _ value: inout Bool) { value = Bool.random(using: &rng) }
    }
}

/// A recorded event with a made-up envelope around `event`, for codec and log tests.
public func sampleRecord(_ event: AppEvent, position: Int, stream: String = "s1", correlation: String? = "c-1", causation: String? = nil)
    -> RecordedEvent
{
    RecordedEvent(
        position: position, stream: stream, version: position, eventId: EventID(high: 0x0123_4567_89ab_cdef, low: UInt64(position)),
        timestamp: Timestamp(microseconds: 1_798_761_600_123_456 + Int64(position)), actor: position % 2 == 0 ? .user : .system,
        correlationId: correlation, causationId: causation, event: event)
}
