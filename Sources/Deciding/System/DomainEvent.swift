/// A domain's whole event type (the events its log stores), with its table of kinds. The code that
/// reads and writes any domain's events finds a kind through `kinds`, never through a list that
/// names one app; the families a domain's events are made of (its cart's, its screens') need none.
///
/// Every log also records events of its own (`SystemEvent`: a stream forgotten), in the stream
/// they concern and in the same order as a session's, so a domain's event type carries them: a
/// `case system(SystemEvent)` is the witness of `system(_:)`, and its kinds are among `kinds`.
public protocol DomainEvent: EventFamily {
    /// Built once, at the first use (a `static let`).
    static var kinds: EventKindTable<Self> { get }
    /// The log's own event as one of this domain's.
    static func system(_ event: SystemEvent) -> Self
    /// The log's own event this is, if it is one.
    var systemEvent: SystemEvent? { get }
}

extension DomainEvent {
    /// The event's kind, from the tag its payload declares: a switch and a table read, for filters
    /// that ask every record's kind.
    @inlinable
    public var kind: Kind { Self.kinds.stored(tag: EventKindTable<Self>.tag(of: self))!.kind }

    /// The event's stable type name, as exports and `flowlog log` show it.
    public var typeName: String { Self.kinds.info(of: self).typeName }

    public var declaration: EventDeclaration { Self.kinds.info(of: self).declaration }
}
