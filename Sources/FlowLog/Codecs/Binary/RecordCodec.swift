import FlowLogSystem
import FlowDomain

/// The storage encoding of one recorded event: compact binary with a hash chain, in one of two
/// layouts (`RecordLayout`), told apart by the first byte.
///
/// Layout 1 (every log before log schema 3), little-endian:
///
/// | bytes | field |
/// |---|---|
/// | 1 | layout (1) |
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
/// Layout 2 (log schema 3), whose personal part can be forgotten without breaking the chain: the
/// same first 44 bytes (layout 2), then a flag, and
///
/// | bytes | field |
/// |---|---|
/// | 1 | 0: live, as below; 1: forgotten (`forgottenForm`) |
/// | 16 | salt, from the kernel's random source (`RecordSalts`) |
/// | … | the payload: stream id, correlation id, causation id, the event's fields, as in layout 1 |
/// | 8 | chain hash: xxHash64 of all bytes above, seeded with the previous record's chain hash |
///
/// A live record is chained whole, salt included, and read with one hash, as layout 1 is. A
/// forgotten one keeps its first 45 bytes (flag 1) and its chain hash, and in place of salt and
/// payload an 8-byte check: xxHash64 of those 45 bytes seeded with the previous chain hash mixed with
/// its own. Every chain hash stays what it was, so the records after it still verify, and a flipped
/// byte anywhere in a forgotten record is caught by its check. What remains confirms no guess of
/// what was forgotten: without the salt, 2^128 salts map onto 2^64 chain hashes, so every guessed
/// payload has about 2^64 salts that give the stored one. xxHash64, not a cryptographic hash,
/// because every read checks every record (docs/decisions.md, "Forgetting a stream").
///
/// Why binary: JSON decoding would cost about 99% of a replay (DESIGN.md). Why a chain: a record's hash
/// covers its predecessor's, so a flipped byte, a removed, reordered or altered record is caught on read.
public enum RecordCodec {
    /// The envelope schema that exports name (`schemaVersion`): 1 for records of either layout,
    /// whose envelopes hold the same fields.
    public static let currentSchemaVersion = 1
    /// The chain hash that the first record is seeded with.
    public static let genesisHash: UInt64 = 0
    package static let trailerSize = 8
    /// Layout 2: where the forgotten flag is (after the envelope, which a forgotten record keeps).
    package static let flagOffset = 44
    /// Layout 2: the salt of a live record starts here.
    package static let saltOffset = 45
    /// Layout 2: a forgotten record's length: envelope, flag, check, chain hash.
    package static let forgottenSize = 61

    /// Encodes `record` into `writer` in `layout` and returns its chain hash, to seed the next record's.
    package static func encode(_ record: RecordedEvent, previousHash: UInt64, layout: RecordLayout,
                               salts: inout RecordSalts, into writer: inout BinaryWriter) -> UInt64 {
        writer.reset()
        writer.write(layout.rawValue)
        writer.write(record.actor == .user ? UInt8(0) : UInt8(1))
        writer.write(UInt16(0)) // the tag, once the fields say which version they were written in
        writer.write(UInt64(record.position))
        writer.write(UInt64(record.version))
        writer.write(record.timestamp.microseconds)
        writer.write(record.eventId.high)
        writer.write(record.eventId.low)
        if layout == .salted {
            writer.write(UInt8(0))
            let (high, low) = salts.take()
            writer.write(high)
            writer.write(low)
        }
        writer.writeShortString(record.stream)
        writer.writeShortString(record.correlationId)
        writer.writeShortString(record.causationId)
        let version = EventFieldsCodec.encode(record.event, into: &writer)
        writer.overwrite(EventFieldsCodec.tag(of: record.event) | UInt16(version - 1) << EventDeclaration.tagBits, at: 2)
        let hash = writer.withUnsafeBytes { XXHash64.hash($0, seed: previousHash) }
        writer.write(hash)
        return hash
    }

    /// Encodes a forgotten record (layout 2) for an event whose payload is gone already (an imported
    /// tombstone): its chain hash is drawn at random, as no payload is left to hash.
    package static func encodeForgotten(_ record: RecordedEvent, previousHash: UInt64, salts: inout RecordSalts,
                                        into writer: inout BinaryWriter) -> UInt64 {
        writer.reset()
        writer.write(RecordLayout.salted.rawValue)
        writer.write(record.actor == .user ? UInt8(0) : UInt8(1))
        writer.write(EventFieldsCodec.tag(of: record.event))
        writer.write(UInt64(record.position))
        writer.write(UInt64(record.version))
        writer.write(record.timestamp.microseconds)
        writer.write(record.eventId.high)
        writer.write(record.eventId.low)
        writer.write(UInt8(1))
        let hash = salts.take().0
        writer.write(writer.withUnsafeBytes { forgottenCheck($0, previousHash: previousHash, hash: hash) })
        writer.write(hash)
        return hash
    }

    /// What `forget` leaves of a live record of layout 2: its envelope, the flag set, the check and
    /// its chain hash; `nil` for a record of layout 1 (or a forgotten or truncated one).
    package static func forgottenForm(of bytes: UnsafeRawBufferPointer, previousHash: UInt64) -> [UInt8]? {
        guard layout(of: bytes) == .salted, bytes.count > saltOffset + trailerSize, bytes[flagOffset] == 0,
              let hash = storedHash(of: bytes) else { return nil }
        var forgotten = Array(bytes[..<flagOffset])
        forgotten.append(1)
        let check = forgotten.withUnsafeBytes { forgottenCheck($0, previousHash: previousHash, hash: hash) }
        withUnsafeBytes(of: check.littleEndian) { forgotten.append(contentsOf: $0) }
        withUnsafeBytes(of: hash.littleEndian) { forgotten.append(contentsOf: $0) }
        return forgotten
    }

    /// A forgotten record's check: its envelope and flag, seeded with the previous chain hash mixed
    /// with its own, so that a flipped byte in either, or a record moved elsewhere, shows.
    private static func forgottenCheck(_ kept: UnsafeRawBufferPointer, previousHash: UInt64, hash: UInt64) -> UInt64 {
        XXHash64.hash(UnsafeRawBufferPointer(rebasing: kept[..<saltOffset]), seed: previousHash ^ hash)
    }

    /// The chain hash stored in a record's last eight bytes, without decoding the rest.
    package static func storedHash(of bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count >= trailerSize else { return nil }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - trailerSize, as: UInt64.self))
    }

    /// The layout a stored record is in, from its first byte (`nil`: none this FlowLog reads).
    package static func layout(of bytes: UnsafeRawBufferPointer) -> RecordLayout? {
        bytes.isEmpty ? nil : RecordLayout(rawValue: bytes[0])
    }

    /// Decodes a record without checking its checksum or position: for reporting on a damaged log only.
    package static func decodeUnverified(_ bytes: UnsafeRawBufferPointer) -> RecordedEvent? {
        guard bytes.count > trailerSize + 12 else { return nil }
        var resealed = Array(bytes[0..<bytes.count - trailerSize])
        if RecordLayout(rawValue: resealed[0]) == nil { resealed[0] = RecordLayout.whole.rawValue }
        let position = Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt64.self)))
        if resealed[0] == RecordLayout.salted.rawValue, resealed.count == forgottenSize - trailerSize, resealed[flagOffset] == 1 {
            // A forgotten record: its chain hash stays, its check is made anew.
            let hash = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - trailerSize, as: UInt64.self))
            resealed.removeLast(trailerSize)
            let check = resealed.withUnsafeBytes { forgottenCheck($0, previousHash: genesisHash, hash: hash) }
            withUnsafeBytes(of: check.littleEndian) { resealed.append(contentsOf: $0) }
            withUnsafeBytes(of: hash.littleEndian) { resealed.append(contentsOf: $0) }
            return resealed.withUnsafeBytes { try? decode($0, expectedPosition: position, previousHash: genesisHash).0 }
        }
        withUnsafeBytes(of: XXHash64.hash(resealed, seed: genesisHash).littleEndian) { resealed.append(contentsOf: $0) }
        return resealed.withUnsafeBytes { try? decode($0, expectedPosition: position, previousHash: genesisHash).0 }
    }

    /// Decodes and checks one record into `record`, field by field, and returns its chain hash;
    /// `record` is left as it was when the record is damaged. A forgotten record (layout 2) comes
    /// back with `isForgotten` set, an empty stream id and a blank event of its kind.
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
        let layout = body[0]
        guard layout == RecordLayout.whole.rawValue || layout == RecordLayout.salted.rawValue else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record has layout \(layout), but this FlowLog reads layouts 1 and 2; upgrade FlowLog")
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
            if layout == RecordLayout.salted.rawValue {
                let flag = try reader.readByte()
                if flag == 1 {
                    try decodeForgotten(bytes, stored: stored, expectedPosition: expectedPosition, previousHash: previousHash, into: &record)
                    return stored
                }
                guard flag == 0 else { throw RecordDamage(position: expectedPosition, stream: nil, problem: "its forgotten flag is \(flag), neither 0 nor 1") }
                reader.offset = saltOffset + 16
            }
            guard let stream = try reader.readShortString() else {
                throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record has no stream id")
            }
            let correlationId = try reader.readShortString()
            let causationId = try reader.readShortString()
            let hash = XXHash64.hash(body, seed: previousHash)
            guard hash == stored else { throw RecordDamage(position: expectedPosition, stream: stream, problem: chainBroken) }
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
            record.schemaVersion = currentSchemaVersion
            record.event = event
            record.isForgotten = false
            return hash
        } catch let damage as RecordDamage {
            throw damage
        } catch {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record ends before its fields do")
        }
    }

    /// A forgotten record (layout 2, flag 1): its check, then its envelope into `record`, with an
    /// empty stream, no ids and a blank event of its kind. Apart from the live path, which every
    /// read takes.
    @inline(never)
    private static func decodeForgotten(_ bytes: UnsafeRawBufferPointer, stored: UInt64, expectedPosition: Int, previousHash: UInt64,
                                        into record: inout RecordedEvent) throws(RecordDamage) {
        guard bytes.count == forgottenSize else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "it is marked forgotten but is \(bytes.count) bytes long, not \(forgottenSize)")
        }
        let check = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: saltOffset, as: UInt64.self))
        guard forgottenCheck(bytes, previousHash: previousHash, hash: stored) == check else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: chainBroken)
        }
        let position = Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt64.self)))
        guard position == expectedPosition else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record says it is position \(position)")
        }
        let tagValue = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        let tag = tagValue & (1 << EventDeclaration.tagBits - 1)
        guard let (kind, _) = EventKinds.stored(tag: tag) else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "unknown event type tag \(tag)")
        }
        record.position = position
        record.stream = ""
        record.version = Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt64.self)))
        record.eventId = EventID(high: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 28, as: UInt64.self)),
                                 low: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 36, as: UInt64.self)))
        record.timestamp = Timestamp(microseconds: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 20, as: Int64.self)))
        record.actor = bytes[1] == 0 ? .user : .system
        record.correlationId = nil
        record.causationId = nil
        record.schemaVersion = currentSchemaVersion
        record.event = EventKinds.info(kind).blankEvent
        record.isForgotten = true
    }

    private static let chainBroken = "its checksum does not match (the record, or one before it, was altered, removed or reordered)"

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

