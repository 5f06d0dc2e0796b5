import FlowLogBasics
import FlowLogStore

/// The binary record codec (`RecordCodec`): what every read of a log decodes, from a file anyone
/// with the disk may have altered. The first byte chooses between two kinds of input:
///
/// - even: the rest is a record as stored, at a position and after a chain hash the input gives;
/// - odd: the rest builds a valid record (an event of a kind and fields the input chooses), in
///   either layout, which must read back as written; then the input's edits (bytes flipped, cut,
///   grown) are applied and, when it asks, the chain hash is made to match again, so that the
///   decoder reads the damaged fields instead of stopping at the checksum.
///
/// Every decode either returns a record or throws a `RecordDamage`; nothing traps.
enum RecordCodecTarget {
    static let target = FuzzTarget(
        name: "record-codec",
        checks:
            "a stored record, random or a valid one damaged (its checksum resealed or not): decoded into a record or a damage report, never a trap; a valid record reads back as written",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        if input.byte() & 1 == 0 {
            let position = Int(truncatingIfNeeded: input.uint64() >> UInt64(input.byte() & 63))
            let previous = input.bool() ? RecordCodec.genesisHash : input.uint64()
            readEveryWay(input.rest(), position: position, previousHash: previous)
        } else {
            damaged(&input)
        }
    }

    /// Everything that reads stored record bytes, on `bytes`.
    static func readEveryWay(_ bytes: UnsafeRawBufferPointer, position: Int, previousHash: UInt64) {
        do throws(RecordDamage) {
            let (record, _) = try RecordCodec.decode(bytes, expectedPosition: position, previousHash: previousHash)
            fuzzCheck(record.position == position, "a record read at position \(position) says \(record.position)")
            _ = FlowJSON.event(record)
            // What `upgrade` does with every record it reads: write it again, in the other layout too.
            if !record.isForgotten { StoredRecords.checkRoundTrip(record) }
        } catch {
            _ = error.description
        }
        if let record = RecordCodec.decodeUnverified(bytes, position: position) { _ = FlowJSON.event(record) }
        _ = RecordCodec.layout(of: bytes)
        _ = RecordCodec.storedTimestamp(of: bytes)
        _ = RecordCodec.forgottenForm(of: bytes, previousHash: previousHash, position: position)
    }

    private static func damaged(_ input: inout FuzzInput) {
        let position = 1 + Int(input.uint64() & 0xFFFF_FFFF)
        let previous = input.uint64()
        let layout: RecordLayout = [.whole, .salted, .traced][Int(input.byte() % 3)]
        let record = FuzzedEvents.record(&input, position: position)
        var bytes = encode(record, layout: layout, previousHash: previous, salt: &input)
        let written = bytes.withUnsafeBytes { try? RecordCodec.decode($0, expectedPosition: position, previousHash: previous) }
        if let (read, _) = written {
            fuzzCheck(read == record.kept(in: layout), "\(record) was written, \(read) read back")
        }
        if layout.isSalted, let forgotten = bytes.withUnsafeBytes({ RecordCodec.forgottenForm(of: $0, previousHash: previous, position: position) }) {
            let read = forgotten.withUnsafeBytes { try? RecordCodec.decode($0, expectedPosition: position, previousHash: previous) }
            fuzzCheck(
                read?.0.isForgotten == true && read?.0.eventId == record.eventId,
                "the forgotten form of \(record) reads as \(String(describing: read))")
        }
        RecordEdits.apply(&input, to: &bytes, previousHash: previous, position: position)
        bytes.withUnsafeBytes { readEveryWay($0, position: position, previousHash: previous) }
    }

    /// The record's bytes in `layout`, its salt (layout 2) taken from the input rather than the
    /// kernel, so that one input always makes one record.
    private static func encode(_ record: RecordedEvent, layout: RecordLayout, previousHash: UInt64, salt input: inout FuzzInput) -> [UInt8] {
        var writer = BinaryWriter()
        _ = RecordCodec.encode(record, previousHash: previousHash, layout: layout, salts: &FuzzSalts.supply, into: &writer)
        var bytes = writer.bytes
        if layout.isSalted {
            for offset in RecordCodec.saltOffset..<RecordCodec.saltOffset + RecordCodec.saltSize { bytes[offset] = input.byte() }
            RecordEdits.reseal(&bytes, previousHash: previousHash, position: record.position)
        }
        return bytes
    }
}
