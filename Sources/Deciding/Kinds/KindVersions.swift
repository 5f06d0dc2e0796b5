/// One version of an event kind, as `flowlog schema events` lists it.
public struct EventVersionInfo: Sendable {
    public let version: Int
    /// What changed from the version before; empty for version 1.
    public let change: String
    /// The first log schema whose logs may hold records of this version.
    public let logSchema: Int
    public let fields: [FieldDescription]
}

/// A kind's version past the first: its fields, the payload type of the version before, and the two
/// pure functions between them.
///
/// `upcast` makes this shape from the one before: it may fill a default, rename, compute, split or
/// merge fields. It always makes exactly one event, because positions, versions, event ids and
/// fingerprints belong to records. `downcast` answers the earlier shape when this event means
/// exactly what that shape can say (so that `upcast(downcast(e)!) == e`), and `nil` when it needs
/// this version: writers store the lowest version that holds an event, so a log keeps the bytes an
/// older build reads for every event that older build could have written.
///
/// A kind moves to version n + 1 by renaming its payload type's declaration into a new struct
/// (`ProductAdded` becomes `ProductAdded.V1`, with version 1's fields and declaration kept as they
/// were) and giving the family's case the new type (docs/architecture.md, "Change an event kind").
public protocol UpcastingPayload: EventPayload {
    associatedtype Earlier: EventPayload
    static func upcast(_ earlier: Earlier) -> Self
    func downcast() -> Earlier?
}

extension EventPayload {
    public static func decodeEarlier<Decoder: PayloadDecoder>(version: Int, _ decoder: inout Decoder) throws -> Self {
        throw UnknownEventVersion(typeName: declaration.typeName.description, version: version, known: declaration.version)
    }

    @inlinable
    public func visitLowestVersion<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws -> Int {
        var fields = self
        try fields.visitFields(&visitor)
        return Self.declaration.version
    }

    public static var versions: [EventVersionInfo] { [info] }

    static var info: EventVersionInfo {
        EventVersionInfo(
            version: declaration.version, change: declaration.change.description,
            logSchema: declaration.logSchema, fields: fieldList)
    }
}

extension UpcastingPayload {
    @inlinable
    public static func decodeEarlier<Decoder: PayloadDecoder>(version: Int, _ decoder: inout Decoder) throws -> Self {
        guard version < declaration.version, version >= 1 else {
            throw UnknownEventVersion(typeName: declaration.typeName.description, version: version, known: declaration.version)
        }
        let earlier =
            version == Earlier.declaration.version
            ? try decoder.payload(Earlier.self)
            : try Earlier.decodeEarlier(version: version, &decoder)
        return upcast(earlier)
    }

    @inlinable
    public func visitLowestVersion<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws -> Int {
        if let earlier = downcast() { return try earlier.visitLowestVersion(&visitor) }
        var fields = self
        try fields.visitFields(&visitor)
        return Self.declaration.version
    }

    public static var versions: [EventVersionInfo] { Earlier.versions + [info] }
}
