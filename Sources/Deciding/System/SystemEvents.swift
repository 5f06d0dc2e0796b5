/// Facts about the log itself, recorded in a system stream beside the sessions' (`SystemStreams`):
/// the audit trail of erasures. Hidden from trackers, `streams` and exports unless asked for.
public enum SystemEvent: EventFamily {
    case streamForgotten(StreamForgotten)

    /// One stream forgotten (`flowlog forget`, `retain`): when (the event's time), how many events,
    /// why, and, where the operator keeps a key, a keyed pseudonym of the stream id, so that a second
    /// request about the same person is recognised without the log holding the id.
    public struct StreamForgotten: EventPayload {
        public static let declaration = EventDeclaration(
            "log.streamForgotten", tag: 40, "A stream was forgotten: its events' data, ids and stream are erased.")
        public var events = 0
        public var reason = ""
        public var pseudonym: String?

        @inlinable public init() {}
        public init(events: Int, reason: String, pseudonym: String?) { (self.events, self.reason, self.pseudonym) = (events, reason, pseudonym) }

        @inlinable
        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("events", .integer, column: .forgottenEvents, "How many events the stream had."), &events)
            try v.visit(Field("reason", .text, column: .erasureReason, "Why, as the operator gave it (never personal data)."), &reason)
            try v.visit(
                Field(
                    "pseudonym", .identifier, column: .streamPseudonym,
                    "HMAC-SHA256 of the stream id under the operator's key, in hex; absent without a key."), &pseudonym)
        }
    }

    public enum Kind: CaseIterable, Hashable, Sendable {
        case streamForgotten
    }

    @inlinable
    public func visitPayload<V: EventPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .streamForgotten(let payload): try v.visit(payload)
        }
    }

    @inlinable
    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> SystemEvent {
        switch kind {
        case .streamForgotten: .streamForgotten(try d.event(StreamForgotten.self))
        }
    }
}

/// The CSV columns the system events introduce, after the others.
extension EventColumn {
    public static let forgottenEvents = EventColumn("erased_events", "BIGINT", order: 24, "log.streamForgotten: how many events the stream had")
    public static let erasureReason = EventColumn("erase_reason", "VARCHAR", order: 25, "log.streamForgotten: why, as the operator gave it")
    public static let streamPseudonym = EventColumn("pseudonym", "VARCHAR", order: 26, "log.streamForgotten: keyed pseudonym of the stream id")
}
