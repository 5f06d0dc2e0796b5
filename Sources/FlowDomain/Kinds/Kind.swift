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

/// An event kind's declaration: its type name and its binary tag.
public struct EventDeclaration: Sendable {
    /// The stable type name exports and `flowlog log` show, for example `cart.productAdded`.
    public let typeName: StaticString
    /// The event's number in stored records. Never reuse or renumber one: old logs depend on it.
    public let tag: UInt16
    public let summary: StaticString

    public init(_ typeName: StaticString, tag: UInt16, _ summary: StaticString) {
        self.typeName = typeName
        self.tag = tag
        self.summary = summary
    }
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
    /// The command this payload is, in the app's nested command enum.
    var command: AppCommand { get }
}

public protocol EventPayload: KindPayload {
    static var declaration: EventDeclaration { get }
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
struct BlankDecoder: PayloadDecoder {
    func payload<Payload: KindPayload>(_ type: Payload.Type) -> Payload { Payload() }
}

/// A registry's lookups of a kind's place in its list, by kind and by type name. Built once; two
/// kinds with one type name stop the program at the first use.
struct KindLookup<Kind: Hashable & Sendable>: Sendable {
    let byKind: [Kind: Int]
    let byTypeName: [String: Int]

    init(kinds: [Kind], typeNames: [String]) {
        byKind = Dictionary(uniqueKeysWithValues: kinds.enumerated().map { ($1, $0) })
        byTypeName = Dictionary(uniqueKeysWithValues: typeNames.enumerated().map { ($1, $0) })
    }
}

/// A family of commands (the cart's, the welcome screen's…): its kinds, the one switch that hands
/// out each command's payload, and the one that makes a command of a kind from a decoder. Both
/// switches are exhaustive, so a new case does not compile until it has its kind and payload.
/// A command's kind is not a third switch: it is looked up from its payload's type
/// (`CommandKinds.info(of:)`), so the two switches cannot disagree with one another unnoticed.
public protocol CommandFamily: Equatable, Sendable {
    associatedtype Kind: CaseIterable, Hashable, Sendable
    func visitPayload<Visitor: CommandPayloadVisitor>(_ visitor: inout Visitor) throws
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
