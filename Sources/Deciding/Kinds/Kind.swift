/// A command kind's declaration: its wire name, who issues it, and where the command line puts it.
public struct CommandDeclaration: Sendable {
    /// SPEC §2's `type`, for example `cart.addProduct`.
    public let typeName: StaticString
    public let actor: Actor
    /// The command line's group and subcommand: `flowlog cart add`.
    public let group: StaticString
    public let verb: StaticString
    public let summary: StaticString

    public init(_ typeName: StaticString, actor: Actor, cli group: StaticString, _ verb: StaticString, _ summary: StaticString) {
        self.typeName = typeName
        self.actor = actor
        self.group = group
        self.verb = verb
        self.summary = summary
    }
}

/// An event kind's declaration: its type name, its binary tag and the version of its fields.
///
/// A kind's fields change over time; each change is a new version, declared by a new payload type
/// whose `Earlier` is the one before (`UpcastingPayload`). Records keep the version they were
/// written with, and reading upcasts them (docs/architecture.md, "Change an event kind").
public struct EventDeclaration: Sendable {
    /// The stable type name exports and `flowlog log` show, for example `cart.productAdded`.
    public let typeName: StaticString
    /// The event's number in stored records. Never reuse or renumber one: old logs depend on it.
    public let tag: UInt16
    public let summary: StaticString
    /// The version of the fields this payload type declares: 1 for a kind's first shape.
    public let version: Int
    /// What changed from the version before (empty for version 1), for `flowlog schema events`.
    public let change: StaticString
    /// The first log schema whose logs may hold records of this version: a log of an older schema
    /// takes the event only where it fits an earlier version, until `flowlog upgrade` raises it.
    public let logSchema: Int

    public init(_ typeName: StaticString, tag: UInt16, _ summary: StaticString) {
        self.init(typeName, tag: tag, version: 1, logSchema: 1, change: "", summary)
    }

    public init(_ typeName: StaticString, tag: UInt16, version: Int, logSchema: Int, change: StaticString, _ summary: StaticString) {
        precondition((1...EventDeclaration.maximumVersion).contains(version), "a kind's version is 1 through \(EventDeclaration.maximumVersion)")
        self.typeName = typeName
        self.tag = tag
        self.summary = summary
        self.version = version
        self.change = change
        self.logSchema = logSchema
    }

    /// Records keep the version in the top four bits of their 16-bit tag (version − 1), the kind's
    /// tag in the other twelve: a version 1 record is byte for byte what it was before versions.
    public static let maximumVersion = 16
    public static let tagBits: UInt16 = 12
}

/// The fields of one command or event kind, as a struct with a blank value (for decoders to fill)
/// and one function that visits its fields in order. That function is the only place a kind's
/// fields are named; codecs, checks, schemas and generators all go through it.
public protocol KindPayload: Equatable, Sendable {
    init()
    mutating func visitFields<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws
}

public protocol CommandPayload: KindPayload {
    static var declaration: CommandDeclaration { get }
    /// A rule between fields that no single field's check sees (`percent` or `amountOff`, not both),
    /// checked after every field passed its own; `nil` when the payload is fine.
    func violation() -> Rejection?
}

extension CommandPayload {
    public func violation() -> Rejection? { nil }
}

public protocol EventPayload: KindPayload {
    static var declaration: EventDeclaration { get }
    /// Reads the fields of an earlier `version` of this kind with `decoder` and upcasts them to this
    /// shape. Kinds of one version have none (`UpcastingPayload` gives the rest theirs).
    static func decodeEarlier<Decoder: PayloadDecoder>(version: Int, _ decoder: inout Decoder) throws -> Self
    /// Visits the fields of the lowest version that holds this event exactly, and answers that
    /// version: a writer stores what an older build can read wherever the event allows it.
    func visitLowestVersion<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws -> Int
    /// Every version of the kind, the first one first.
    static var versions: [EventVersionInfo] { get }
}

extension KindPayload {
    /// The kind's fields, in declaration order.
    public static var fieldList: [FieldDescription] {
        var lister = FieldLister()
        var blank = Self()
        try? blank.visitFields(&lister)
        return lister.fields
    }
}

/// Gets the payload of a command, with its concrete type, from the switch of its family.
public protocol CommandPayloadVisitor {
    mutating func visit<Payload: CommandPayload>(_ payload: Payload) throws
}

/// Gets the payload of an event, with its concrete type, from the switch of its family.
public protocol EventPayloadVisitor {
    mutating func visit<Payload: EventPayload>(_ payload: Payload) throws
}

/// Makes the payload of a kind a family's decoding switch names.
public protocol PayloadDecoder {
    mutating func payload<Payload: KindPayload>(_ type: Payload.Type) throws -> Payload
    /// The version of the event kind the input holds; `nil` for the kind's current version (every
    /// input that is not a stored event or an exported line: commands, blank payloads).
    var eventVersion: Int? { get }
}

extension PayloadDecoder {
    public var eventVersion: Int? { nil }

    /// The event of `type` this decoder holds, upcast from the version it was written with.
    @inlinable
    public mutating func event<Payload: EventPayload>(_ type: Payload.Type) throws -> Payload {
        if let version = eventVersion, version != Payload.declaration.version {
            return try Payload.decodeEarlier(version: version, &self)
        }
        return try payload(type)
    }
}

extension PayloadDecoder where Self: FieldVisitor {
    /// A blank payload with every field read by this decoder.
    @inlinable
    public mutating func payload<Payload: KindPayload>(_ type: Payload.Type) throws -> Payload {
        var payload = Payload()
        try payload.visitFields(&self)
        return payload
    }
}

/// Makes blank payloads, to learn each kind's declaration without any input.
public struct BlankDecoder: PayloadDecoder {
    public init() {}
    public func payload<Payload: KindPayload>(_ type: Payload.Type) -> Payload { Payload() }
}

/// A registry's lookups of a kind's place in its list, by kind and by type name. Built once; two
/// kinds with one type name stop the program at the first use.
public struct KindLookup<Kind: Hashable & Sendable>: Sendable {
    public let byKind: [Kind: Int]
    public let byTypeName: [String: Int]

    public init(kinds: [Kind], typeNames: [String]) {
        byKind = Dictionary(uniqueKeysWithValues: kinds.enumerated().map { ($1, $0) })
        byTypeName = Dictionary(uniqueKeysWithValues: typeNames.enumerated().map { ($1, $0) })
    }
}

/// A family of commands (the cart's, the welcome screen's…): its kinds, the one switch that hands
/// out each command's payload, and the one that makes a command of a kind from a decoder. Both
/// switches are exhaustive, so a new case does not compile until it has its kind and payload.
/// A command's kind is not a third switch: it is looked up from its payload's type
/// (`CommandKinds.info(of:)`), so the two switches cannot disagree with one another unnoticed.
public protocol CommandFamily: CommandPayloadCarrier, Equatable, Sendable {
    associatedtype Kind: CaseIterable, Hashable, Sendable
    static func decode<Decoder: PayloadDecoder>(_ kind: Kind, _ decoder: inout Decoder) throws -> Self
}

/// The event counterpart of `CommandFamily`.
public protocol EventFamily: Equatable, Sendable {
    associatedtype Kind: CaseIterable, Hashable, Sendable
    func visitPayload<Visitor: EventPayloadVisitor>(_ visitor: inout Visitor) throws
    static func decode<Decoder: PayloadDecoder>(_ kind: Kind, _ decoder: inout Decoder) throws -> Self
}

/// A kind without fields (a tap on a button): it opts in to visiting nothing, so a kind with
/// fields can never forget to visit them.
public protocol FieldlessPayload: KindPayload {}

extension FieldlessPayload {
    @inlinable
    public mutating func visitFields<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws {}
}

extension PayloadDecoder {
    /// Reads the (empty) payload of a fieldless kind and answers its case.
    @inlinable
    public mutating func fieldless<Payload: KindPayload, Value>(_ type: Payload.Type, _ value: Value) throws -> Value {
        _ = try payload(type)
        return value
    }
}
