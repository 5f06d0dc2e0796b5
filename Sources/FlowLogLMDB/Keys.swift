import FlowLogBasics
import FlowLogStore
import FlowLogSystem
import LMDB

/// Builds keys in buffers that live on the stack, so the hot append path allocates nothing per key.
struct KeyScratch {
    private var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    func withPosition<R>(_ position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: UInt64(position).bigEndian, body)
    }

    func withEventID<R>(_ id: EventID, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: (id.high.bigEndian, id.low.bigEndian), body)
    }

    /// `stream`, 0x00, big-endian `version` (streams are identifiers of at most 64 bytes).
    mutating func withStreamVersion<R>(_ stream: String, _ version: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var stream = stream
        return try withUnsafeMutableBytes(of: &buffer) { raw in
            let count = stream.withUTF8 { utf8 in
                raw.copyMemory(from: UnsafeRawBufferPointer(utf8))
                return utf8.count
            }
            raw[count] = 0
            raw.storeBytes(of: UInt64(version).bigEndian, toByteOffset: count + 1, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: raw[0..<count + 9]))
        }
    }
}

/// The byte layouts of the keys and small values above.
enum Keys {
    static func position(_ position: Int) -> [UInt8] { bigEndian(UInt64(position)) }

    static func eventID(_ id: EventID) -> [UInt8] { bigEndian(id.high) + bigEndian(id.low) }

    /// The event id an `eventIds` key holds, in `eventID(_:)`'s layout.
    static func decodeEventID(_ key: [UInt8]) -> EventID? {
        guard key.count == 16 else { return nil }
        return key.withUnsafeBytes {
            EventID(
                high: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)),
                low: UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// The event id an `eventIds` key holds, or `nil` when it is not 16 bytes.
    static func eventID(of key: UnsafeRawBufferPointer) -> EventID? {
        guard key.count == 16 else { return nil }
        return EventID(
            high: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)), low: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        )
    }

    /// The fingerprint after the position in a `streamIndex` value, if it has one (logs written before
    /// the `fingerprints` database).
    static func decodeFingerprint(_ value: UnsafeRawBufferPointer) -> UInt64? {
        value.count >= 16 ? UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) : nil
    }

    /// The big-endian position at the start of a key or value (0 when it is too short to hold one,
    /// which the callers' checks then report as damage).
    static func decodePosition(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 8 else { return 0 }
        return Int(truncatingIfNeeded: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
    }

    static func streamPrefix(_ stream: String) -> [UInt8] { Array(stream.utf8) + [0] }

    /// Whether `key` begins with `prefix` (a `streamPrefix`), in one `memcmp`. `Sequence.starts(with:)`
    /// stepped two iterators byte by byte, and a stream's walks ask it of every key: a state's load
    /// from the 10M-event log asked it of each of the session's 70 kept rows.
    @inline(__always)
    static func key(_ key: UnsafeRawBufferPointer, startsWith prefix: [UInt8]) -> Bool {
        guard key.count >= prefix.count else { return false }
        guard let start = key.baseAddress else { return prefix.isEmpty }
        return prefix.withUnsafeBytes { memcmp(start, $0.baseAddress!, $0.count) == 0 }
    }

    /// The big-endian number (a version, an order or page number) at the end of a `streamVersion` key.
    static func decodeNumber(_ key: UnsafeRawBufferPointer) -> Int {
        guard key.count >= 8 else { return 0 }
        return Int(truncatingIfNeeded: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self)))
    }

    static func streamVersion(_ stream: String, _ version: Int) -> [UInt8] {
        streamPrefix(stream) + bigEndian(UInt64(version))
    }

    static func command(_ stream: String, _ commandId: String) -> [UInt8] {
        streamPrefix(stream) + Array(commandId.utf8)
    }

    /// First position, event count and version (8 bytes each, little-endian), then the command's
    /// fingerprint where there is one: receipts written before fingerprints are 24 bytes long.
    static func receipt(_ receipt: CommandReceipt) -> [UInt8] {
        littleEndian(UInt64(receipt.firstPosition)) + littleEndian(UInt64(receipt.eventCount)) + littleEndian(UInt64(receipt.version))
            + (receipt.commandFingerprint.map(littleEndian) ?? [])
    }

    static func decodeReceipt(_ bytes: UnsafeRawBufferPointer) -> CommandReceipt {
        CommandReceipt(
            firstPosition: decodeInt(bytes), eventCount: decodeInt(bytes, at: 8), version: decodeInt(bytes, at: 16),
            commandFingerprint: bytes.count >= 32 ? UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) : nil)
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    static func littleEndian(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// The little-endian integer at `offset` of a stored value, as `littleEndian(_:)` wrote it (0 when
    /// the value is too short to hold one, which the callers' checks then report as damage).
    static func decodeInt(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) -> Int {
        guard bytes.count >= offset + 8 else { return 0 }
        return Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }
}
