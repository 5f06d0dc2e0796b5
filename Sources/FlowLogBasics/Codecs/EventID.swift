/// A 128-bit event id, shown as a canonical lowercase UUID (`0193a8c2-…`).
///
/// FlowLog keeps its own small type rather than Foundation's `UUID` so that the hot paths (encoding,
/// decoding, exporting millions of events) never format or parse through Foundation.
public struct EventID: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) { (self.high, self.low) = (high, low) }

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, in either case.
    public init?(_ text: String) {
        guard let id = EventID.parse(text.utf8) else { return nil }
        self = id
    }

    package static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> EventID? {
        if let parsed = bytes.withContiguousStorageIfAvailable({ parse(UnsafeRawBufferPointer($0)) }) { return parsed }
        return Array(bytes).withUnsafeBytes { parse($0) }
    }

    /// The canonical 8-4-4-4-12 form, in either case. Table-driven: imports parse one per line.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> EventID? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
            bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        return hexTable.withUnsafeBufferPointer { table in
            var invalid: UInt8 = 0
            func hex(_ range: Range<Int>, into value: inout UInt64) {
                for index in range {
                    let nibble = table[Int(bytes.load(fromByteOffset: index, as: UInt8.self))]
                    invalid |= nibble
                    value = value << 4 | UInt64(nibble & 0x0F)
                }
            }
            var high: UInt64 = 0
            var low: UInt64 = 0
            hex(0..<8, into: &high)
            hex(9..<13, into: &high)
            hex(14..<18, into: &high)
            hex(19..<23, into: &low)
            hex(24..<36, into: &low)
            return invalid & 0xF0 == 0 ? EventID(high: high, low: low) : nil
        }
    }

    /// Each byte's hex value, or 0xFF for a byte that is not a hex digit.
    private static let hexTable: [UInt8] = (0...255).map { hexValue(UInt8($0)) ?? 0xFF }

    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        ByteFormatting.appendUUID(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Where new event ids come from. Injected, so tests get predictable ids and production gets unique ones.
public protocol EventIDGenerator {
    mutating func next() -> EventID
    /// The next id for an event stamped `timestamp`; a generator that puts the time in its ids
    /// takes it from there rather than reading its clock again (`send` stamps 100,000s of events).
    mutating func next(at timestamp: Timestamp) -> EventID
}

extension EventIDGenerator {
    public mutating func next(at timestamp: Timestamp) -> EventID { next() }
}

/// UUID version 7 (RFC 9562): a millisecond timestamp followed by 74 random bits, so ids sort roughly
/// by time and stay unique across the processes that share one log.
///
/// The random bits come from xoshiro256** seeded once from the system's entropy: one `getrandom`
/// call per event would cost more than deciding the command.
public struct UUIDv7Generator: EventIDGenerator {
    private var clock: any WallClock
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(clock: any WallClock = SystemClock()) {
        self.clock = clock
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next() | 1)
    }

    public mutating func next() -> EventID { next(at: clock.now()) }

    public mutating func next(at timestamp: Timestamp) -> EventID {
        let milliseconds = UInt64(max(0, timestamp.microseconds / 1000)) & 0xFFFF_FFFF_FFFF
        let random = nextRandom()
        let randomA = random >> 52
        let randomB = nextRandom() & 0x3FFF_FFFF_FFFF_FFFF
        return EventID(high: milliseconds << 16 | 0x7000 | randomA, low: 0x8000_0000_0000_0000 | randomB)
    }

    private mutating func nextRandom() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 { (value << bits) | (value >> (64 - bits)) }
}

/// Ids 00000000-0000-0000-0000-000000000001, …002, … in order: for tests and reproducible demos.
public struct SequentialIDGenerator: EventIDGenerator {
    private var counter: UInt64

    public init(startingAfter counter: UInt64 = 0) {
        self.counter = counter
    }

    public mutating func next() -> EventID {
        counter += 1
        return EventID(high: 0, low: counter)
    }
}
