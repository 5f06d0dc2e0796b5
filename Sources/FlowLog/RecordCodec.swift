#if canImport(Glibc)
import Glibc
#endif
import FlowDomain

/// The storage encoding of one recorded event: compact, versioned binary with a hash chain.
///
/// Layout (little-endian), schema 1:
///
/// | bytes | field |
/// |---|---|
/// | 1 | schema version |
/// | 1 | actor (0 user, 1 system) |
/// | 2 | event type tag |
/// | 8 | position |
/// | 8 | stream version |
/// | 8 | timestamp, µs since the Unix epoch |
/// | 16 | event id |
/// | 1+n | stream id |
/// | 1+n | correlation id (length 0: none) |
/// | 1+n | causation id (length 0: none) |
/// | … | the event's fields, by tag |
/// | 8 | chain hash: xxHash64 of all bytes above, seeded with the previous record's chain hash |
///
/// Why binary: JSON decoding would cost about 99% of a replay (DESIGN.md). Why a chain: a record's hash
/// covers its predecessor's, so a flipped byte, a removed, reordered or altered record is caught on read.
public enum RecordCodec {
    public static let currentSchemaVersion = 1
    /// The chain hash that the first record is seeded with.
    public static let genesisHash: UInt64 = 0
    static let trailerSize = 8

    /// Encodes `record` into `writer` and returns its chain hash, to seed the next record's.
    static func encode(_ record: RecordedEvent, previousHash: UInt64, into writer: inout BinaryWriter) -> UInt64 {
        writer.reset()
        writer.write(UInt8(currentSchemaVersion))
        writer.write(record.actor == .user ? UInt8(0) : UInt8(1))
        writer.write(EventTag.of(record.event).rawValue)
        writer.write(UInt64(record.position))
        writer.write(UInt64(record.version))
        writer.write(record.timestamp.microseconds)
        writer.write(record.eventId.high)
        writer.write(record.eventId.low)
        writer.writeShortString(record.stream)
        writer.writeShortString(record.correlationId)
        writer.writeShortString(record.causationId)
        EventFieldsCodec.encode(record.event, into: &writer)
        let hash = writer.withUnsafeBytes { XXHash64.hash($0, seed: previousHash) }
        writer.write(hash)
        return hash
    }

    /// The chain hash stored in a record's last eight bytes, without decoding the rest.
    static func storedHash(of bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count >= trailerSize else { return nil }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - trailerSize, as: UInt64.self))
    }

    /// Decodes a record without checking its checksum or position: for reporting on a damaged log only.
    static func decodeUnverified(_ bytes: UnsafeRawBufferPointer) -> RecordedEvent? {
        guard bytes.count > trailerSize + 12 else { return nil }
        var resealed = Array(bytes[0..<bytes.count - trailerSize])
        if !(1...currentSchemaVersion).contains(Int(resealed[0])) { resealed[0] = UInt8(currentSchemaVersion) }
        let position = Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt64.self)))
        withUnsafeBytes(of: XXHash64.hash(resealed, seed: genesisHash).littleEndian) { resealed.append(contentsOf: $0) }
        return resealed.withUnsafeBytes { try? decode($0, expectedPosition: position, previousHash: genesisHash).0 }
    }

    /// Decodes and checks one record into `record`, field by field, and returns its chain hash;
    /// `record` is left as it was when the record is damaged.
    ///
    /// For walks, which reuse one `record` (declared inside the walk's closure, not captured by it,
    /// or it is copied when passed on): a record built and returned was copied on its way out of
    /// this function, each of its strings retained and released again. Without those copies a
    /// replay runs 15% fewer instructions.
    static func decode(_ bytes: UnsafeRawBufferPointer, expectedPosition: Int, previousHash: UInt64,
                       into record: inout RecordedEvent) throws(RecordDamage) -> UInt64 {
        guard let stored = storedHash(of: bytes), bytes.count > trailerSize else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record is truncated (\(bytes.count) bytes)")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[0..<bytes.count - trailerSize])
        let schema = Int(body[0])
        guard schema <= currentSchemaVersion, schema >= 1 else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record has schema version \(schema), but this FlowLog reads versions 1 through \(currentSchemaVersion); upgrade FlowLog")
        }
        var reader = BinaryReader(body)
        do {
            reader.offset = 1
            let actor: Actor = try reader.readByte() == 0 ? .user : .system
            let tagValue = try reader.readUInt16()
            let position = Int(truncatingIfNeeded: try reader.readUInt64())
            let version = Int(truncatingIfNeeded: try reader.readUInt64())
            let timestamp = Timestamp(microseconds: try reader.readInt64())
            let eventId = EventID(high: try reader.readUInt64(), low: try reader.readUInt64())
            guard let stream = try reader.readShortString() else {
                throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record has no stream id")
            }
            let correlationId = try reader.readShortString()
            let causationId = try reader.readShortString()
            let hash = XXHash64.hash(body, seed: previousHash)
            guard hash == stored else {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: "its checksum does not match (the record, or one before it, was altered, removed or reordered)")
            }
            guard position == expectedPosition else {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: "the record says it is position \(position)")
            }
            guard let tag = EventTag(rawValue: tagValue) else {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: "unknown event type tag \(tagValue)")
            }
            let event = try EventFieldsCodec.decode(tag, from: &reader)
            guard reader.remaining == 0 else {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: "\(reader.remaining) unexpected bytes after the event's fields")
            }
            record.position = position
            record.stream = stream
            record.version = version
            record.eventId = eventId
            record.timestamp = timestamp
            record.actor = actor
            record.correlationId = correlationId
            record.causationId = causationId
            record.schemaVersion = schema
            record.event = event
            return hash
        } catch let damage as RecordDamage {
            throw damage
        } catch {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record ends before its fields do")
        }
    }

    /// Decodes and checks one record. `expectedPosition` is the position of its key in the log.
    static func decode(_ bytes: UnsafeRawBufferPointer, expectedPosition: Int, previousHash: UInt64) throws(RecordDamage) -> (RecordedEvent, hash: UInt64) {
        var record = RecordedEvent.placeholder
        let hash = try decode(bytes, expectedPosition: expectedPosition, previousHash: previousHash, into: &record)
        return (record, hash)
    }
}

extension RecordedEvent {
    /// A record to decode into (`RecordCodec.decode(_:expectedPosition:previousHash:into:)`).
    static let placeholder = RecordedEvent(position: 0, stream: "", version: 0, eventId: EventID(high: 0, low: 0),
                                           timestamp: Timestamp(microseconds: 0), actor: .system, event: .navigation(.modalDismissed))
}

/// A record that cannot be trusted: where it is and what is wrong with it.
public struct RecordDamage: Error, Equatable, Sendable, CustomStringConvertible {
    public let position: Int
    public let stream: String?
    public let problem: String

    public var description: String {
        "The event at position \(position)\(stream.map { " (stream \($0))" } ?? "") is damaged: \(problem)."
    }
}

/// Stable numbers for event types in storage. Never reuse or renumber one: old logs depend on them.
enum EventTag: UInt16 {
    case productAdded = 1, productRemoved, discountApplied, discountRemoved, checkoutStarted, orderPlaced, paymentFailed
    case appLaunched = 20, signUpStarted, logInStarted, onboardingAdvanced, onboardingWentBack, onboardingFinished
    case loginSucceeded, loginCancelled, tabSelected, modalPresented, modalDismissed

    /// The tag of an event type name (`cart.productAdded`), given as bytes.
    init?(typeName: UnsafeRawBufferPointer) {
        guard let index = Self.typeNameBytes.firstIndex(where: { name in
            name.count == typeName.count && name.withUnsafeBytes { memcmp($0.baseAddress!, typeName.baseAddress!, name.count) == 0 }
        }) else { return nil }
        self = EventTag.inTypeNameOrder[index]
    }

    /// `ExportFilter.eventTypes` as bytes: an import looks a type name up for every line.
    private static let typeNameBytes: [[UInt8]] = ExportFilter.eventTypes.map { Array($0.utf8) }

    /// The tags in the order of `ExportFilter.eventTypes`.
    static let inTypeNameOrder: [EventTag] = [
        .productAdded, .productRemoved, .discountApplied, .discountRemoved, .checkoutStarted, .orderPlaced, .paymentFailed,
        .appLaunched, .signUpStarted, .logInStarted, .onboardingAdvanced, .onboardingWentBack, .onboardingFinished,
        .loginSucceeded, .loginCancelled, .tabSelected, .modalPresented, .modalDismissed,
    ]

    static func of(_ event: AppEvent) -> EventTag {
        switch event {
        case .cart(.productAdded): .productAdded
        case .cart(.productRemoved): .productRemoved
        case .cart(.discountApplied): .discountApplied
        case .cart(.discountRemoved): .discountRemoved
        case .cart(.checkoutStarted): .checkoutStarted
        case .cart(.orderPlaced): .orderPlaced
        case .cart(.paymentFailed): .paymentFailed
        case .navigation(.appLaunched): .appLaunched
        case .navigation(.signUpStarted): .signUpStarted
        case .navigation(.logInStarted): .logInStarted
        case .navigation(.onboardingAdvanced): .onboardingAdvanced
        case .navigation(.onboardingWentBack): .onboardingWentBack
        case .navigation(.onboardingFinished): .onboardingFinished
        case .navigation(.loginSucceeded): .loginSucceeded
        case .navigation(.loginCancelled): .loginCancelled
        case .navigation(.tabSelected): .tabSelected
        case .navigation(.modalPresented): .modalPresented
        case .navigation(.modalDismissed): .modalDismissed
        }
    }
}

/// The per-type fields of an event, after the envelope.
enum EventFieldsCodec {
    static func encode(_ event: AppEvent, into writer: inout BinaryWriter) {
        switch event {
        case .cart(.productAdded(let productId, let name, let unitPrice, let quantity)):
            writer.writeShortString(productId)
            writer.writeString(name)
            writer.write(int: unitPrice)
            writer.write(int: quantity)
        case .cart(.productRemoved(let productId, let quantity)):
            writer.writeShortString(productId)
            writer.write(int: quantity)
        case .cart(.discountApplied(let discountId, let percent, let productId)):
            writer.writeShortString(discountId)
            writer.write(int: percent)
            writer.writeShortString(productId)
        case .cart(.discountRemoved(let discountId)):
            writer.writeShortString(discountId)
        case .cart(.checkoutStarted(let total, let itemCount)):
            writer.write(int: total)
            writer.write(int: itemCount)
        case .cart(.orderPlaced(let orderId, let total, let itemCount)):
            writer.writeShortString(orderId)
            writer.write(int: total)
            writer.write(int: itemCount)
        case .cart(.paymentFailed(let reason)):
            writer.writeString(reason)
        case .navigation(.appLaunched(let hasOnboarded)):
            writer.write(hasOnboarded ? UInt8(1) : UInt8(0))
        case .navigation(.tabSelected(let tab)):
            writer.write(int: tab)
        case .navigation(.signUpStarted), .navigation(.logInStarted), .navigation(.onboardingAdvanced),
             .navigation(.onboardingWentBack), .navigation(.onboardingFinished), .navigation(.loginSucceeded),
             .navigation(.loginCancelled), .navigation(.modalPresented), .navigation(.modalDismissed):
            break
        }
    }

    static func decode(_ tag: EventTag, from reader: inout BinaryReader) throws -> AppEvent {
        switch tag {
        case .productAdded:
            return .cart(.productAdded(productId: try identifier(&reader), name: try reader.readString(),
                                       unitPrice: try reader.readInt(), quantity: try reader.readInt()))
        case .productRemoved:
            return .cart(.productRemoved(productId: try identifier(&reader), quantity: try reader.readInt()))
        case .discountApplied:
            return .cart(.discountApplied(discountId: try identifier(&reader), percent: try reader.readInt(),
                                          productId: try reader.readShortString()))
        case .discountRemoved:
            return .cart(.discountRemoved(discountId: try identifier(&reader)))
        case .checkoutStarted:
            return .cart(.checkoutStarted(total: try reader.readInt(), itemCount: try reader.readInt()))
        case .orderPlaced:
            return .cart(.orderPlaced(orderId: try identifier(&reader), total: try reader.readInt(), itemCount: try reader.readInt()))
        case .paymentFailed:
            return .cart(.paymentFailed(reason: try reader.readString()))
        case .appLaunched:
            return .navigation(.appLaunched(hasOnboarded: try reader.readByte() != 0))
        case .tabSelected:
            return .navigation(.tabSelected(try reader.readInt()))
        case .signUpStarted: return .navigation(.signUpStarted)
        case .logInStarted: return .navigation(.logInStarted)
        case .onboardingAdvanced: return .navigation(.onboardingAdvanced)
        case .onboardingWentBack: return .navigation(.onboardingWentBack)
        case .onboardingFinished: return .navigation(.onboardingFinished)
        case .loginSucceeded: return .navigation(.loginSucceeded)
        case .loginCancelled: return .navigation(.loginCancelled)
        case .modalPresented: return .navigation(.modalPresented)
        case .modalDismissed: return .navigation(.modalDismissed)
        }
    }

    private static func identifier(_ reader: inout BinaryReader) throws -> String {
        guard let value = try reader.readShortString() else { throw BinaryReader.OutOfBounds() }
        return value
    }
}
