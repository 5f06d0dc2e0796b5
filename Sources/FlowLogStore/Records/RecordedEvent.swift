public import Deciding
public import FlowLogBasics

/// An event as the log holds it: the domain fact plus the envelope the log and the pipeline gave it.
public struct RecordedEvent: Equatable, Sendable {
    /// 1-based, contiguous across the whole log, never reused.
    public var position: Int
    public var stream: String
    /// 1-based, contiguous within `stream`.
    public var version: Int
    public var eventId: EventID
    public var timestamp: Timestamp
    public var actor: Actor
    /// Groups everything one conversation caused (set by the caller, an identifier).
    public var correlationId: String?
    /// The id of the command that caused this event, where the command carried one.
    public var causationId: String?
    /// The W3C trace context of the command that caused this event (a request's `traceparent`, a
    /// `send` line's `meta.traceparent`, or the span it was decided in), where it had one and the
    /// log's schema keeps it (`RecordLayout.traced`).
    public var traceContext: TraceContext?
    /// The storage schema the record was written with (upcast on read when older).
    public var schemaVersion: Int
    public var event: LogDecider.Event
    /// Whether the record was forgotten (`flowlog forget`): its position, version, event id, kind,
    /// actor and timestamp remain; its stream is empty, its ids are `nil` and `event` is a blank
    /// event of its kind. Only `forEachRecord` yields such records.
    public var isForgotten = false

    public init(
        position: Int, stream: String, version: Int, eventId: EventID, timestamp: Timestamp,
        actor: Actor, correlationId: String? = nil, causationId: String? = nil, traceContext: TraceContext? = nil,
        schemaVersion: Int = RecordCodec.currentSchemaVersion, event: LogDecider.Event
    ) {
        (self.position, self.stream, self.version, self.eventId, self.timestamp) = (position, stream, version, eventId, timestamp)
        (self.actor, self.correlationId, self.causationId, self.schemaVersion, self.event) = (actor, correlationId, causationId, schemaVersion, event)
        self.traceContext = traceContext
    }
}

/// An event that is ready to be appended: everything but the position and the stream version,
/// which only the log can give.
public struct NewEvent: Equatable, Sendable {
    public var eventId: EventID
    public var timestamp: Timestamp
    public var actor: Actor
    public var correlationId: String?
    public var causationId: String?
    public var traceContext: TraceContext?
    public var event: LogDecider.Event

    public init(
        eventId: EventID, timestamp: Timestamp, actor: Actor, correlationId: String? = nil,
        causationId: String? = nil, traceContext: TraceContext? = nil, event: LogDecider.Event
    ) {
        (self.eventId, self.timestamp, self.actor, self.correlationId, self.causationId) = (eventId, timestamp, actor, correlationId, causationId)
        (self.traceContext, self.event) = (traceContext, event)
    }
}

extension RecordedEvent {
    /// A record as `forget` leaves it: its position, version, event id, actor and time, and its
    /// kind as a blank event; no stream, no ids, no data. The one definition for every place that
    /// makes one: a record read in its forgotten layout, an exported tombstone, a forget in memory.
    package init(forgottenAt position: Int, version: Int, eventId: EventID, timestamp: Timestamp, actor: Actor, kind: LogDecider.Event.Kind) {
        self.init(
            position: position, stream: "", version: version, eventId: eventId, timestamp: timestamp, actor: actor,
            event: LogDecider.Event.kinds.info(kind).blankEvent)
        isForgotten = true
    }

    /// This record as `forget` leaves it.
    package var forgotten: RecordedEvent {
        RecordedEvent(
            forgottenAt: position, version: version, eventId: eventId, timestamp: timestamp, actor: actor,
            kind: LogDecider.Event.kinds.info(of: event).kind)
    }
}
