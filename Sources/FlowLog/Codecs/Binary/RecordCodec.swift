import FlowLogSystem
import FlowDomain

/// The storage encoding of one recorded event: compact, versioned binary with a hash chain.
///
/// Layout (little-endian), schema 1:
///
/// | bytes | field |
/// |---|---|
/// | 1 | schema version |
/// | 1 | actor (0 user, 1 system) |
/// | 2 | event type tag (low 12 bits) and the kind's version − 1 (high 4 bits) |
/// | 8 | position |
/// | 8 | stream version |
/// | 8 | timestamp, µs since the Unix epoch |
/// | 16 | event id |
/// | 1+n | stream id |
/// | 1+n | correlation id (length 0: none) |
/// | 1+n | causation id (length 0: none) |
/// | … | the event's fields, as that version of the kind declares them |
/// | 8 | chain hash: xxHash64 of all bytes above, seeded with the previous record's chain hash |
///
/// Why binary: JSON decoding would cost about 99% of a replay (DESIGN.md). Why a chain: a record's hash
/// covers its predecessor's, so a flipped byte, a removed, reordered or altered record is caught on read.
public enum RecordCodec {
    public static let currentSchemaVersion = 1
    /// The chain hash that the first record is seeded with.
    public static let genesisHash: UInt64 = 0
    package static let trailerSize = 8

    /// Encodes `record` into `writer` and returns its chain hash, to seed the next record's.
    package static func encode(_ record: RecordedEvent, previousHash: UInt64, into writer: inout BinaryWriter) -> UInt64 {
        writer.reset()
        writer.write(UInt8(currentSchemaVersion))
        writer.write(record.actor == .user ? UInt8(0) : UInt8(1))
        writer.write(UInt16(0)) // the tag, once the fields say which version they were written in
        writer.write(UInt64(record.position))
        writer.write(UInt64(record.version))
        writer.write(record.timestamp.microseconds)
        writer.write(record.eventId.high)
        writer.write(record.eventId.low)
        writer.writeShortString(record.stream)
        writer.writeShortString(record.correlationId)
        writer.writeShortString(record.causationId)
        let version = EventFieldsCodec.encode(record.event, into: &writer)
        writer.overwrite(EventFieldsCodec.tag(of: record.event) | UInt16(version - 1) << EventDeclaration.tagBits, at: 2)
        let hash = writer.withUnsafeBytes { XXHash64.hash($0, seed: previousHash) }
        writer.write(hash)
        return hash
    }

    /// The chain hash stored in a record's last eight bytes, without decoding the rest.
    package static func storedHash(of bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count >= trailerSize else { return nil }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - trailerSize, as: UInt64.self))
    }

    /// Decodes a record without checking its checksum or position: for reporting on a damaged log only.
    package static func decodeUnverified(_ bytes: UnsafeRawBufferPointer) -> RecordedEvent? {
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
    package static func decode(_ bytes: UnsafeRawBufferPointer, expectedPosition: Int, previousHash: UInt64,
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
            let tag = tagValue & (1 << EventDeclaration.tagBits - 1)
            guard let (kind, currentVersion) = EventKinds.stored(tag: tag) else {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: "unknown event type tag \(tag)")
            }
            let event: AppEvent
            do {
                event = try EventFieldsCodec.decode(kind, version: Int(tagValue >> EventDeclaration.tagBits) + 1,
                                                    currentVersion: currentVersion, from: &reader)
            } catch let unknown as UnknownEventVersion {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: unknown.description, unknownVersion: unknown)
            }
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
    package static func decode(_ bytes: UnsafeRawBufferPointer, expectedPosition: Int, previousHash: UInt64) throws(RecordDamage) -> (RecordedEvent, hash: UInt64) {
        var record = RecordedEvent.placeholder
        let hash = try decode(bytes, expectedPosition: expectedPosition, previousHash: previousHash, into: &record)
        return (record, hash)
    }
}

extension RecordedEvent {
    /// A record to decode into (`RecordCodec.decode(_:expectedPosition:previousHash:into:)`).
    package static let placeholder = RecordedEvent(position: 0, stream: "", version: 0, eventId: EventID(high: 0, low: 0),
                                           timestamp: Timestamp(microseconds: 0), actor: .system, event: .navigation(.modalDismissed))
}

/// A record that cannot be trusted: where it is and what is wrong with it.
///
/// A record of a kind's version newer than this build knows is not damage: its checksum held, and a
/// later FlowLog reads it. It comes as a `RecordDamage` (reads stop there all the same) with
/// `unknownVersion` set, and every message says "upgrade FlowLog", never "damaged".
public struct RecordDamage: Error, Equatable, Sendable, CustomStringConvertible {
    public let position: Int
    public let stream: String?
    public let problem: String
    public let unknownVersion: UnknownEventVersion?

    public init(position: Int, stream: String?, problem: String, unknownVersion: UnknownEventVersion? = nil) {
        self.position = position
        self.stream = stream
        self.problem = problem
        self.unknownVersion = unknownVersion
    }

    /// Intact, but of a kind's version newer than this build knows.
    public var isNewerThanKnown: Bool { unknownVersion?.isNewer ?? false }

    public var description: String {
        let place = "The event at position \(position)\(stream.map { " (stream \($0))" } ?? "")"
        return isNewerThanKnown ? "\(place) was written by a newer FlowLog: \(problem)." : "\(place) is damaged: \(problem)."
    }
}

/// The per-type fields of an event, after the envelope, in the order its kind declares them:
/// identifiers as short strings, free text as strings, integers as eight bytes, flags as one byte.
package enum EventFieldsCodec {
    /// The tag stored records give the event's kind.
    @inline(__always)
    package static func tag(of event: AppEvent) -> UInt16 {
        var reader = TagReader()
        try! event.visitPayload(&reader)
        return reader.tag
    }

    /// Writes the fields of the lowest version of the event's kind that holds it, and answers that version.
    package static func encode(_ event: AppEvent, into writer: inout BinaryWriter) -> Int {
        withUnsafeMutablePointer(to: &writer) { pointer in
            var encoder = FieldEncoder(writer: pointer)
            try! event.visitPayload(&encoder)
            return encoder.version
        }
    }

    package static func decode(_ kind: AppEvent.Kind, version: Int, currentVersion: Int, from reader: inout BinaryReader) throws -> AppEvent {
        var decoder = FieldDecoder(reader: reader, eventVersion: version, currentVersion: currentVersion)
        let event = try AppEvent.decode(kind, &decoder)
        reader = decoder.reader
        return event
    }

    private struct TagReader: EventPayloadVisitor {
        var tag: UInt16 = 0
        @inline(__always)
        mutating func visit<Payload: EventPayload>(_ payload: Payload) { tag = Payload.declaration.tag }
    }

    /// Writes through a pointer: `BinaryWriter` is noncopyable, and visitors are values.
    private struct FieldEncoder: EventPayloadVisitor, FieldVisitor {
        let writer: UnsafeMutablePointer<BinaryWriter>
        var version = 1

        init(writer: UnsafeMutablePointer<BinaryWriter>) { self.writer = writer }

        @inline(__always)
        mutating func visit<Payload: EventPayload>(_ payload: Payload) throws {
            version = try payload.visitLowestVersion(&self)
        }

        mutating func visit(_ field: Field, _ value: inout String) {
            if field.type == .identifier { writer.pointee.writeShortString(value) } else { writer.pointee.writeString(value) }
        }

        mutating func visit(_ field: Field, _ value: inout String?) {
            precondition(field.type == .identifier, "an optional event field that is not an identifier has no binary layout")
            writer.pointee.writeShortString(value)
        }

        mutating func visit(_ field: Field, _ value: inout Int) { writer.pointee.write(int: value) }

        mutating func visit(_ field: Field, _ value: inout Int?) {
            preconditionFailure("an optional integer event field has no binary layout")
        }

        mutating func visit(_ field: Field, _ value: inout Bool) { writer.pointee.write(value ? UInt8(1) : UInt8(0)) }
    }

    private struct FieldDecoder: PayloadDecoder, FieldVisitor {
        var reader: BinaryReader
        /// The version the record was written in; `event(_:)` upcasts it where it is not the current one.
        let eventVersion: Int?

        /// `nil` where the record holds its kind's current version (most records): `event(_:)` then
        /// reads the payload without looking at its declaration.
        init(reader: BinaryReader, eventVersion: Int, currentVersion: Int) {
            self.reader = reader
            self.eventVersion = eventVersion == currentVersion ? nil : eventVersion
        }

        mutating func visit(_ field: Field, _ value: inout String) throws {
            if field.type == .identifier {
                guard let read = try reader.readShortString() else { throw BinaryReader.OutOfBounds() }
                value = read
            } else {
                value = try reader.readString()
            }
        }

        mutating func visit(_ field: Field, _ value: inout String?) throws { value = try reader.readShortString() }
        mutating func visit(_ field: Field, _ value: inout Int) throws { value = try reader.readInt() }
        mutating func visit(_ field: Field, _ value: inout Int?) throws { value = try reader.readInt() }
        mutating func visit(_ field: Field, _ value: inout Bool) throws { value = try reader.readByte() != 0 }
    }
}
