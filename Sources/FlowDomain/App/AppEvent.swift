public import Deciding

/// Facts that happened, as the log records them, grouped by flow as FlowAction groups actions.
public enum AppEvent: Equatable, Sendable {
    case cart(CartEvent)
    case navigation(NavigationEvent)
    case system(SystemEvent)

    /// Which kind of event this is; every kind of every family, without its fields.
    public enum Kind: Hashable, Sendable {
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

    /// Which kind of event this is: the kind whose tag this event's payload declares.
    public var kind: Kind { EventKinds.kind(tag: EventKinds.tag(of: self))! }

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

    /// The event's stable type name, as exports and `flowlog log` show it.
    public var typeName: String { EventKinds.info(of: self).typeName }

    public var declaration: EventDeclaration { EventKinds.info(of: self).declaration }
}

/// One event kind as every list of kinds sees it.
public struct EventKindInfo: Sendable {
    public let kind: AppEvent.Kind
    public let declaration: EventDeclaration
    public let typeName: String
    public let fields: [FieldDescription]
    /// The kind's place in `EventKinds.all`.
    public let index: Int
    /// Every version of the kind, the first one first; the last is the current one.
    public let versions: [EventVersionInfo]
    /// An event of this kind with empty fields: what a forgotten record (its kind kept, its data
    /// erased) reads as, so that counts by kind still add up.
    public let blankEvent: AppEvent
    /// The current version: the shape every reader sees.
    public var version: Int { declaration.version }

    /// The newest version of this kind a log of `logSchema` may hold.
    public func newestVersion(inLogSchema logSchema: Int) -> Int {
        versions.last { $0.logSchema <= logSchema }?.version ?? 1
    }
}

/// Every event kind, derived from the families' declarations: codecs, filters and schemas look
/// kinds up here instead of keeping lists of their own.
public enum EventKinds {
    public static let all: [EventKindInfo] = AppEvent.Kind.allCases.enumerated().map { index, kind in
        var blank = BlankDecoder()
        var reader = DeclarationReader()
        let blankEvent = try! AppEvent.decode(kind, &blank)
        try! blankEvent.visitPayload(&reader)
        return EventKindInfo(
            kind: kind, declaration: reader.declaration!, typeName: reader.declaration!.typeName.description,
            fields: reader.fields, index: index, versions: reader.versions, blankEvent: blankEvent)
    }

    private static let lookup = KindLookup(kinds: all.map(\.kind), typeNames: all.map(\.typeName))
    @usableFromInline static let byTag: [Int?] = {
        var table = [Int?](repeating: nil, count: Int(all.map(\.declaration.tag).max()!) + 1)
        for info in all { table[Int(info.declaration.tag)] = info.index }
        return table
    }()

    public static func info(_ kind: AppEvent.Kind) -> EventKindInfo { all[lookup.byKind[kind]!] }

    public static func info(typeName: String) -> EventKindInfo? { lookup.byTypeName[typeName].map { all[$0] } }

    /// The kind of `event`, found by its payload's tag.
    public static func info(of event: AppEvent) -> EventKindInfo { all[byTag[Int(tag(of: event))]!] }

    /// The tag `event`'s payload declares: a constant of its case, read through the family's
    /// switch, so that filters asking every record's kind pay a switch and a table read.
    @inlinable
    public static func tag(of event: AppEvent) -> UInt16 {
        var reader = TagReader()
        try! event.visitPayload(&reader)
        return reader.tag
    }

    /// Each kind's current version, by its place in `all`.
    @usableFromInline static let currentVersions: [Int] = all.map(\.version)

    /// The newest log schema any kind's version needs: what `flowlog upgrade` raises a log to.
    public static let newestLogSchema = all.flatMap(\.versions).map(\.logSchema).max() ?? 1

    /// The version a record of `event` is stored in: the lowest version of its kind that holds it.
    @inlinable
    public static func storedVersion(of event: AppEvent) -> Int {
        var reader = StoredVersionReader()
        try! event.visitPayload(&reader)
        return reader.version
    }

    /// The kind stored records give this tag; `nil` for a tag no kind has.
    @inline(__always)
    public static func kind(tag: UInt16) -> AppEvent.Kind? {
        stored(tag: tag)?.kind
    }

    /// The kind stored records give this tag and its current version, found with one table read
    /// (a decoder asks both of every record); `nil` for a tag no kind has.
    @inline(__always)
    public static func stored(tag: UInt16) -> (kind: AppEvent.Kind, currentVersion: Int)? {
        let index = Int(tag)
        guard index < byTag.count, let position = byTag[index] else { return nil }
        return (all[position].kind, currentVersions[position])
    }

    /// Every type name, in declaration order.
    public static var typeNames: [String] { all.map(\.typeName) }

    /// Every CSV column an event field names, in the schema's order.
    public static var columns: [EventColumn] {
        var seen = Set<EventColumn>()
        return all.flatMap(\.fields).compactMap(\.field.column).filter { seen.insert($0).inserted }.sorted { $0.order < $1.order }
    }

    private struct DeclarationReader: EventPayloadVisitor {
        var declaration: EventDeclaration?
        var fields: [FieldDescription] = []
        var versions: [EventVersionInfo] = []
        mutating func visit<Payload: EventPayload>(_ payload: Payload) {
            declaration = Payload.declaration
            fields = Payload.fieldList
            versions = Payload.versions
        }
    }
}

/// Reads the version of the lowest shape that holds the payload an event's switch hands out.
@usableFromInline
struct StoredVersionReader: EventPayloadVisitor, FieldVisitor {
    @usableFromInline var version = 1
    @inlinable init() {}
    @inlinable mutating func visit<Payload: EventPayload>(_ payload: Payload) throws { version = try payload.visitLowestVersion(&self) }
    @inlinable mutating func visit(_ field: Field, _ value: inout String) {}
    @inlinable mutating func visit(_ field: Field, _ value: inout String?) {}
    @inlinable mutating func visit(_ field: Field, _ value: inout Int) {}
    @inlinable mutating func visit(_ field: Field, _ value: inout Int?) {}
    @inlinable mutating func visit(_ field: Field, _ value: inout Bool) {}
}

/// Reads the tag of the payload an event's switch hands out.
@usableFromInline
struct TagReader: EventPayloadVisitor {
    @usableFromInline var tag: UInt16 = 0
    @inlinable init() {}
    @inlinable mutating func visit<Payload: EventPayload>(_ payload: Payload) { tag = Payload.declaration.tag }
}
