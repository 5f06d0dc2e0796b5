import Deciding
package import FlowLogBasics
import FlowLogSystem

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
/// Layout 2 (log schema 3), whose personal part can be forgotten without breaking the chain:
///
/// | bytes | field |
/// |---|---|
/// | 1 | 2 (live) or 3 (forgotten) |
/// | 1, 2, 8, 8, 16 | actor, tag, stream version, timestamp, event id, as in layout 1 |
/// | 12 | salt, from the kernel's random source (`RecordSalts`) |
/// | … | the payload: stream id, correlation id, causation id, the event's fields, as in layout 1 |
/// | 8 | chain hash: xxHash64 of all bytes above, seeded with the previous record's chain hash and the position |
///
/// Layout 4 (log schema 5) is layout 2 whose record carries a W3C trace context (`TraceContext`):
/// first byte 4, and after the causation id, inside the salted payload, 16 bytes of trace id
/// (big-endian halves), 8 of span id, 1 of trace flags and the `tracestate` (2+n, length 0: none).
/// A record without a context stays in layout 2 in every schema. `forget` drops the context with
/// the payload: its forgotten form is layout 2's.
///
/// The position is not stored: it is the record's key, and it seeds the hash, so a record read at
/// another position fails its check. A live record is chained whole, salt included, and read with
/// one hash, as layout 1 is; the salt and the missing position keep it 4 bytes longer than layout 1.
/// A forgotten record (`forgottenForm`) keeps its envelope and its chain hash, and in place of salt
/// and payload an 8-byte check: xxHash64 of the envelope, seeded with the previous chain hash, its
/// own and the position. Every chain hash stays what it was, so the records after it still verify,
/// and a flipped byte anywhere in a forgotten record is caught by its check. What remains confirms
/// no guess of what was forgotten: without the salt, 2^96 salts map onto 2^64 chain hashes, so every
/// guessed payload has about 2^32 salts that give the stored one. xxHash64, not a cryptographic
/// hash, because every read checks every record (docs/decisions.md, "Forgetting a stream").
///
/// Why binary: decoding JSON would be nearly all of a replay's time (docs/decisions.md). Why a chain: a record's hash
/// covers its predecessor's, so a flipped byte, a removed, reordered or altered record is caught on read.
public enum RecordCodec {
    /// The envelope schema that exports name (`schemaVersion`): 1 for records of either layout,
    /// whose envelopes hold the same fields.
    public static let currentSchemaVersion = 1
    /// The chain hash that the first record is seeded with.
    public static let genesisHash: UInt64 = 0
    package static let trailerSize = 8
    /// Layout 2's first byte for a forgotten record.
    package static let forgottenMark: UInt8 = 3
    /// Layout 2: the envelope's length; a live record's salt starts here.
    package static let saltOffset = 36
    package static let saltSize = 12
    /// Layout 2: a forgotten record's length: envelope, check, chain hash.
    package static let forgottenSize = 52

    /// The seed of a layout 2 record's hashes: the previous chain hash and the record's position,
    /// which the record does not store.
    @inline(__always)
    package static func seed(_ previousHash: UInt64, position: Int) -> UInt64 {
        previousHash ^ (UInt64(truncatingIfNeeded: position) &* 0x9E37_79B9_7F4A_7C15)
    }

    /// Encodes `record` into `writer` in `layout` and returns its chain hash, to seed the next record's.
    package static func encode(
        _ record: RecordedEvent, previousHash: UInt64, layout: RecordLayout,
        salts: inout RecordSalts, into writer: inout BinaryWriter
    ) -> UInt64 {
        writer.reset()
        let traced = layout == .traced ? record.traceContext : nil
        writer.write(traced != nil ? RecordLayout.traced.rawValue : layout == .whole ? RecordLayout.whole.rawValue : RecordLayout.salted.rawValue)
        writer.write(record.actor == .user ? UInt8(0) : UInt8(1))
        writer.write(UInt16(0))  // the tag, once the fields say which version they were written in
        if layout == .whole { writer.write(UInt64(record.position)) }
        writer.write(UInt64(record.version))
        writer.write(record.timestamp.microseconds)
        writer.write(record.eventId.high)
        writer.write(record.eventId.low)
        if layout.isSalted {
            let (high, low) = salts.take()
            writer.write(high)
            writer.write(UInt32(truncatingIfNeeded: low))
        }
        writer.writeShortString(record.stream)
        writer.writeShortString(record.correlationId)
        writer.writeShortString(record.causationId)
        if let traced { write(traced, into: &writer) }
        let version = EventFieldsCodec.encode(record.event, into: &writer)
        writer.overwrite(EventFieldsCodec.tag(of: record.event) | UInt16(version - 1) << EventDeclaration.tagBits, at: 2)
        let seed = layout.isSalted ? seed(previousHash, position: record.position) : previousHash
        let hash = writer.withUnsafeBytes { XXHash64.hash($0, seed: seed) }
        writer.write(hash)
        return hash
    }

    /// Encodes a forgotten record (layout 2) for an event whose payload is gone already (an imported
    /// tombstone): its chain hash is drawn at random, as no payload is left to hash.
    package static func encodeForgotten(
        _ record: RecordedEvent, previousHash: UInt64, salts: inout RecordSalts,
        into writer: inout BinaryWriter
    ) -> UInt64 {
        writer.reset()
        writer.write(forgottenMark)
        writer.write(record.actor == .user ? UInt8(0) : UInt8(1))
        writer.write(EventFieldsCodec.tag(of: record.event))
        writer.write(UInt64(record.version))
        writer.write(record.timestamp.microseconds)
        writer.write(record.eventId.high)
        writer.write(record.eventId.low)
        let hash = salts.take().0
        writer.write(writer.withUnsafeBytes { forgottenCheck($0, previousHash: previousHash, hash: hash, position: record.position) })
        writer.write(hash)
        return hash
    }

    /// What `forget` leaves of the live layout 2 record at `position`: its envelope marked forgotten,
    /// the check and its chain hash; `nil` for a record of layout 1 (or a forgotten or truncated one).
    package static func forgottenForm(of bytes: UnsafeRawBufferPointer, previousHash: UInt64, position: Int) -> [UInt8]? {
        guard bytes.count > saltOffset + trailerSize, bytes[0] == RecordLayout.salted.rawValue || bytes[0] == RecordLayout.traced.rawValue,
            let hash = storedHash(of: bytes)
        else { return nil }
        var forgotten = Array(bytes[..<saltOffset])
        forgotten[0] = forgottenMark
        let check = forgotten.withUnsafeBytes { forgottenCheck($0, previousHash: previousHash, hash: hash, position: position) }
        withUnsafeBytes(of: check.littleEndian) { forgotten.append(contentsOf: $0) }
        withUnsafeBytes(of: hash.littleEndian) { forgotten.append(contentsOf: $0) }
        return forgotten
    }

    /// A forgotten record's check: its envelope, seeded with the previous chain hash mixed with its
    /// own and its position, so that a flipped byte in any of them, or a record moved, shows.
    private static func forgottenCheck(_ kept: UnsafeRawBufferPointer, previousHash: UInt64, hash: UInt64, position: Int) -> UInt64 {
        XXHash64.hash(UnsafeRawBufferPointer(rebasing: kept[..<saltOffset]), seed: seed(previousHash ^ hash, position: position))
    }

    /// The chain hash stored in a record's last eight bytes (`trailerSize`), without decoding the rest.
    package static func storedHash(of bytes: UnsafeRawBufferPointer) -> UInt64? { BinaryWriter.trailingHash(of: bytes) }

    /// The layout a stored record is in, from its first byte (`nil`: none this FlowLog reads).
    package static func layout(of bytes: UnsafeRawBufferPointer) -> RecordLayout? {
        bytes.isEmpty ? nil : bytes[0] == forgottenMark ? .salted : RecordLayout(rawValue: bytes[0])
    }

    /// The time a stored record gives its event, without decoding the rest.
    package static func storedTimestamp(of bytes: UnsafeRawBufferPointer) -> Timestamp? {
        guard let layout = layout(of: bytes) else { return nil }
        let offset = layout == .whole ? 20 : 12
        guard bytes.count >= offset + 8 else { return nil }
        return Timestamp(microseconds: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
    }

    /// Decodes the record at `position` without checking its checksum: for reporting on a damaged log only.
    package static func decodeUnverified(_ bytes: UnsafeRawBufferPointer, position: Int) -> RecordedEvent? {
        guard bytes.count > trailerSize + 12 else { return nil }
        var resealed = Array(bytes[0..<bytes.count - trailerSize])
        if resealed[0] != forgottenMark, RecordLayout(rawValue: resealed[0]) == nil { resealed[0] = RecordLayout.whole.rawValue }
        if resealed[0] == forgottenMark {
            guard bytes.count == forgottenSize else { return nil }
            // A forgotten record: its chain hash stays, its check is made anew.
            let hash = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - trailerSize, as: UInt64.self))
            resealed.removeLast(trailerSize)
            let check = resealed.withUnsafeBytes { forgottenCheck($0, previousHash: genesisHash, hash: hash, position: position) }
            withUnsafeBytes(of: check.littleEndian) { resealed.append(contentsOf: $0) }
            withUnsafeBytes(of: hash.littleEndian) { resealed.append(contentsOf: $0) }
            return resealed.withUnsafeBytes { try? decode($0, expectedPosition: position, previousHash: genesisHash).0 }
        }
        if resealed[0] == RecordLayout.whole.rawValue, resealed.count >= 12 {
            // Layout 1 says where it belongs; the walk's position is what a damaged record is reported at.
            withUnsafeBytes(of: UInt64(truncatingIfNeeded: position).littleEndian) { resealed.replaceSubrange(4..<12, with: $0) }
        }
        let seed = resealed[0] != RecordLayout.whole.rawValue ? seed(genesisHash, position: position) : genesisHash
        withUnsafeBytes(of: XXHash64.hash(resealed, seed: seed).littleEndian) { resealed.append(contentsOf: $0) }
        return resealed.withUnsafeBytes { try? decode($0, expectedPosition: position, previousHash: genesisHash).0 }
    }

    /// Decodes and checks one record into `record`, field by field, and returns its chain hash;
    /// `record` is left as it was when the record is damaged. A forgotten record (layout 2) comes
    /// back with `isForgotten` set, an empty stream id and a blank event of its kind.
    ///
    /// For walks, which reuse one `record` (declared inside the walk's closure, not captured by it,
    /// or it is copied when passed on): a record built and returned was copied on its way out of
    /// this function, each of its strings retained and released again, a share of a replay's
    /// instructions worth saving.
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, expectedPosition: Int, previousHash: UInt64,
        into record: inout RecordedEvent
    ) throws(RecordDamage) -> UInt64 {
        guard let stored = storedHash(of: bytes), bytes.count > trailerSize else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record is truncated (\(bytes.count) bytes)")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[0..<bytes.count - trailerSize])
        let layout = body[0]
        if layout == forgottenMark {
            try decodeForgotten(bytes, stored: stored, expectedPosition: expectedPosition, previousHash: previousHash, into: &record)
            return stored
        }
        guard layout == RecordLayout.whole.rawValue || layout == RecordLayout.salted.rawValue || layout == RecordLayout.traced.rawValue else {
            throw RecordDamage(
                position: expectedPosition, stream: nil,
                problem: "the record has layout \(layout), but this FlowLog reads layouts 1, 2 and 4; upgrade FlowLog")
        }
        let salted = layout != RecordLayout.whole.rawValue
        var reader = BinaryReader(body)
        do {
            reader.offset = 1
            let actor: Actor = try reader.readByte() == 0 ? .user : .system
            let tagValue = try reader.readUInt16()
            let position = salted ? expectedPosition : Int(truncatingIfNeeded: try reader.readUInt64())
            let version = Int(truncatingIfNeeded: try reader.readUInt64())
            let timestamp = Timestamp(microseconds: try reader.readInt64())
            let eventId = EventID(high: try reader.readUInt64(), low: try reader.readUInt64())
            if salted { reader.offset = saltOffset + saltSize }
            guard let stream = try reader.readShortString() else {
                throw RecordDamage(position: expectedPosition, stream: nil, problem: "the record has no stream id")
            }
            let correlationId = try reader.readShortString()
            let causationId = try reader.readShortString()
            let traceContext =
                layout == RecordLayout.traced.rawValue ? try readTraceContext(&reader, position: expectedPosition, stream: stream) : nil
            let hash = XXHash64.hash(body, seed: salted ? seed(previousHash, position: expectedPosition) : previousHash)
            guard hash == stored else { throw RecordDamage(position: expectedPosition, stream: stream, problem: chainBroken) }
            guard position == expectedPosition else {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: "the record says it is position \(position)")
            }
            // Versions start at 1 and are written as such; one beyond `Int.max` read as negative
            // would trap whatever writes the record again (`upgrade`).
            guard version >= 1 else {
                throw RecordDamage(
                    position: expectedPosition, stream: stream, problem: "the record says it is version \(UInt64(bitPattern: Int64(version)))")
            }
            let tag = tagValue & (1 << EventDeclaration.tagBits - 1)
            guard let (kind, currentVersion) = LogDecider.Event.kinds.stored(tag: tag) else {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: "unknown event type tag \(tag)")
            }
            let event: LogDecider.Event
            do {
                event = try EventFieldsCodec.decode(
                    kind, version: Int(tagValue >> EventDeclaration.tagBits) + 1,
                    currentVersion: currentVersion, from: &reader)
            } catch let unknown as UnknownEventVersion {
                throw RecordDamage(position: expectedPosition, stream: stream, problem: unknown.description, unknownVersion: unknown)
            } catch let range as RecordedValueOutOfRange {
                throw RecordDamage(
                    position: expectedPosition, stream: stream, problem: "\(range); an earlier build stored it unchecked",
                    outOfRange: range)
            }
            guard reader.remaining == 0 else {
                throw RecordDamage(
                    position: expectedPosition, stream: stream, problem: "\(reader.remaining) unexpected bytes after the event's fields")
            }
            record.position = position
            record.stream = stream
            record.version = version
            record.eventId = eventId
            record.timestamp = timestamp
            record.actor = actor
            record.correlationId = correlationId
            record.causationId = causationId
            record.traceContext = traceContext
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

    /// A forgotten record (layout 2, first byte 3): its check, then its envelope into `record`, with
    /// an empty stream, no ids and a blank event of its kind. Apart from the live path, which every
    /// read takes.
    @inline(never)
    private static func decodeForgotten(
        _ bytes: UnsafeRawBufferPointer, stored: UInt64, expectedPosition: Int, previousHash: UInt64,
        into record: inout RecordedEvent
    ) throws(RecordDamage) {
        guard bytes.count == forgottenSize else {
            throw RecordDamage(
                position: expectedPosition, stream: nil, problem: "it is marked forgotten but is \(bytes.count) bytes long, not \(forgottenSize)")
        }
        let check = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: saltOffset, as: UInt64.self))
        guard forgottenCheck(bytes, previousHash: previousHash, hash: stored, position: expectedPosition) == check else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: chainBroken)
        }
        let tagValue = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        let tag = tagValue & (1 << EventDeclaration.tagBits - 1)
        guard let (kind, _) = LogDecider.Event.kinds.stored(tag: tag) else {
            throw RecordDamage(position: expectedPosition, stream: nil, problem: "unknown event type tag \(tag)")
        }
        let version = Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt64.self)))
        guard version >= 1 else {
            throw RecordDamage(
                position: expectedPosition, stream: nil, problem: "the record says it is version \(UInt64(bitPattern: Int64(version)))")
        }
        record = RecordedEvent(
            forgottenAt: expectedPosition, version: version,
            eventId: EventID(
                high: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 20, as: UInt64.self)),
                low: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 28, as: UInt64.self))),
            timestamp: Timestamp(microseconds: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: Int64.self))),
            actor: bytes[1] == 0 ? .user : .system, kind: kind)
    }

    /// Layout 4's trace context: trace id, span id, flags and `tracestate`, as `write` puts them.
    private static func write(_ context: TraceContext, into writer: inout BinaryWriter) {
        writer.write(context.traceHigh.bigEndian)
        writer.write(context.traceLow.bigEndian)
        writer.write(context.spanID.bigEndian)
        writer.write(context.flags)
        writer.writeString(context.state ?? "")
    }

    private static func readTraceContext(_ reader: inout BinaryReader, position: Int, stream: String) throws -> TraceContext {
        let high = UInt64(bigEndian: try reader.readUInt64())
        let low = UInt64(bigEndian: try reader.readUInt64())
        let span = UInt64(bigEndian: try reader.readUInt64())
        let flags = try reader.readByte()
        let state = try reader.readString()
        guard let context = TraceContext(traceHigh: high, traceLow: low, spanID: span, flags: flags, state: state.isEmpty ? nil : state),
            (context.state?.utf8.count ?? 0) == state.utf8.count
        else {
            throw RecordDamage(position: position, stream: stream, problem: "its trace context is not one W3C allows")
        }
        return context
    }

    private static let chainBroken = "its checksum does not match (the record, or one before it, was altered, removed or reordered)"

    /// Decodes and checks one record. `expectedPosition` is the position of its key in the log.
    package static func decode(_ bytes: UnsafeRawBufferPointer, expectedPosition: Int, previousHash: UInt64) throws(RecordDamage) -> (
        RecordedEvent, hash: UInt64
    ) {
        var record = RecordedEvent.placeholder
        let hash = try decode(bytes, expectedPosition: expectedPosition, previousHash: previousHash, into: &record)
        return (record, hash)
    }
}

extension RecordedEvent {
    /// A record to decode into (`RecordCodec.decode(_:expectedPosition:previousHash:into:)`).
    package static let placeholder = RecordedEvent(
        position: 0, stream: "", version: 0, eventId: EventID(high: 0, low: 0),
        timestamp: Timestamp(microseconds: 0), actor: .system, event: LogDecider.placeholderEvent)
}
