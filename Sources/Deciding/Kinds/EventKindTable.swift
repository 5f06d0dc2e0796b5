/// One event kind as every list of kinds sees it.
public struct EventKindEntry<Event: EventFamily>: Sendable {
    public let kind: Event.Kind
    public let declaration: EventDeclaration
    public let typeName: String
    public let fields: [FieldDescription]
    /// The kind's place in its table's `all`.
    public let index: Int
    /// Every version of the kind, the first one first; the last is the current one.
    public let versions: [EventVersionInfo]
    /// An event of this kind with empty fields: what a forgotten record (its kind kept, its data
    /// erased) reads as, so that counts by kind still add up.
    public let blankEvent: Event
    /// The current version: the shape every reader sees.
    public var version: Int { declaration.version }

    /// The newest version of this kind a log of `logSchema` may hold.
    public func newestVersion(inLogSchema logSchema: Int) -> Int {
        versions.last { $0.logSchema <= logSchema }?.version ?? 1
    }
}

/// Every event kind of a domain, derived from its families' declarations: codecs, filters and
/// schemas look kinds up here instead of keeping lists of their own. A domain builds its table once
/// (`static let`); two kinds with one tag or one type name stop the program at that first use.
public struct EventKindTable<Event: EventFamily>: Sendable {
    public let all: [EventKindEntry<Event>]
    private let lookup: KindLookup<Event.Kind>
    @usableFromInline let byTag: [Int?]
    /// Each kind's current version, by its place in `all`.
    @usableFromInline let currentVersions: [Int]
    /// The newest log schema any kind's version needs: what `upgrade` raises a log to.
    public let newestLogSchema: Int

    public init() {
        all = Event.Kind.allCases.enumerated().map { index, kind in
            var blank = BlankDecoder()
            var reader = DeclarationReader()
            let blankEvent = try! Event.decode(kind, &blank)
            try! blankEvent.visitPayload(&reader)
            return EventKindEntry(
                kind: kind, declaration: reader.declaration!, typeName: reader.declaration!.typeName.description,
                fields: reader.fields, index: index, versions: reader.versions, blankEvent: blankEvent)
        }
        lookup = KindLookup(kinds: all.map(\.kind), typeNames: all.map(\.typeName))
        var table = [Int?](repeating: nil, count: Int(all.map(\.declaration.tag).max() ?? 0) + 1)
        for info in all {
            precondition(table[Int(info.declaration.tag)] == nil, "two event kinds have the tag \(info.declaration.tag)")
            table[Int(info.declaration.tag)] = info.index
        }
        byTag = table
        currentVersions = all.map(\.version)
        newestLogSchema = all.flatMap(\.versions).map(\.logSchema).max() ?? 1
    }

    public func info(_ kind: Event.Kind) -> EventKindEntry<Event> { all[lookup.byKind[kind]!] }

    public func info(typeName: String) -> EventKindEntry<Event>? { lookup.byTypeName[typeName].map { all[$0] } }

    /// The kind of `event`, found by its payload's tag.
    public func info(of event: Event) -> EventKindEntry<Event> { all[byTag[Int(Self.tag(of: event))]!] }

    /// The tag `event`'s payload declares: a constant of its case, read through the family's
    /// switch, so that filters asking every record's kind pay a switch and a table read.
    @inlinable
    public static func tag(of event: Event) -> UInt16 {
        var reader = TagReader()
        try! event.visitPayload(&reader)
        return reader.tag
    }

    /// The version a record of `event` is stored in: the lowest version of its kind that holds it.
    @inlinable
    public static func storedVersion(of event: Event) -> Int {
        var reader = StoredVersionReader()
        try! event.visitPayload(&reader)
        return reader.version
    }

    /// The kind stored records give this tag and its current version, found with one table read
    /// (a decoder asks both of every record); `nil` for a tag no kind has.
    @inline(__always)
    public func stored(tag: UInt16) -> (kind: Event.Kind, currentVersion: Int)? {
        let index = Int(tag)
        guard index < byTag.count, let position = byTag[index] else { return nil }
        return (all[position].kind, currentVersions[position])
    }

    /// Every type name, in declaration order.
    public var typeNames: [String] { all.map(\.typeName) }

    /// Every CSV column an event field names, in the schema's order.
    public var columns: [EventColumn] {
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
