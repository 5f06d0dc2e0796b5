public import Deciding

/// Facts that happened, as the log records them, grouped by flow as FlowAction groups actions.
public enum AppEvent: EventFamily {
    case cart(CartEvent)
    case navigation(NavigationEvent)
    case system(SystemEvent)

    /// Which kind of event this is; every kind of every family, without its fields.
    public enum Kind: CaseIterable, Hashable, Sendable {
        case cart(CartEvent.Kind)
        case navigation(NavigationEvent.Kind)
        case system(SystemEvent.Kind)

        /// Whether the kind is one of the log's own (`SystemEvent`), never a session's.
        public var isSystem: Bool {
            if case .system = self { true } else { false }
        }

        /// Every kind, in declaration order (the cart's, the navigation's, then the log's own).
        public static let allCases: [Kind] =
            CartEvent.Kind.allCases.map(Kind.cart) + NavigationEvent.Kind.allCases.map(Kind.navigation)
            + SystemEvent.Kind.allCases.map(Kind.system)
    }

    /// Hands the event's payload, with its concrete type, to `visitor`.
    @inlinable
    public func visitPayload<V: EventPayloadVisitor>(_ visitor: inout V) throws {
        switch self {
        case .cart(let event): try event.visitPayload(&visitor)
        case .navigation(let event): try event.visitPayload(&visitor)
        case .system(let event): try event.visitPayload(&visitor)
        }
    }

    /// An event of `kind` with the fields `decoder` reads.
    @inlinable
    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ decoder: inout D) throws -> AppEvent {
        switch kind {
        case .cart(let kind): .cart(try CartEvent.decode(kind, &decoder))
        case .navigation(let kind): .navigation(try NavigationEvent.decode(kind, &decoder))
        case .system(let kind): .system(try SystemEvent.decode(kind, &decoder))
        }
    }

}

/// One event kind of the app as every list of kinds sees it.
public typealias EventKindInfo = EventKindEntry<AppEvent>

/// The app's events as a domain's: the table the codecs of any domain's events ask.
extension AppEvent: DomainEvent {
    public static let kinds = EventKindTable<AppEvent>()

    public var systemEvent: SystemEvent? { if case .system(let event) = self { event } else { nil } }
}

/// Every event kind of the app (`EventKindTable`), under the names the app's own code calls.
public enum EventKinds {
    public static var table: EventKindTable<AppEvent> { AppEvent.kinds }

    @inlinable public static var all: [EventKindInfo] { table.all }
    public static var newestLogSchema: Int { table.newestLogSchema }
    public static func info(_ kind: AppEvent.Kind) -> EventKindInfo { table.info(kind) }
    public static func info(typeName: String) -> EventKindInfo? { table.info(typeName: typeName) }
    public static func info(of event: AppEvent) -> EventKindInfo { table.info(of: event) }
    @inlinable public static func storedVersion(of event: AppEvent) -> Int { EventKindTable.storedVersion(of: event) }
    @inline(__always) public static func kind(tag: UInt16) -> AppEvent.Kind? { table.stored(tag: tag)?.kind }
    public static var typeNames: [String] { table.typeNames }
    public static var columns: [EventColumn] { table.columns }
}
