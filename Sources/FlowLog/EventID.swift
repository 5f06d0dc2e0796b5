/// A 128-bit event id, shown as a canonical lowercase UUID (`0193a8c2-…`).
///
/// FlowLog keeps its own small type rather than Foundation's `UUID` so that the hot paths (encoding,
/// decoding, exporting millions of events) never format or parse through Foundation.
public struct EventID: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, in either case.
    public init?(_ text: String) {
        guard let id = EventID.parse(text.utf8) else { return nil }
        self = id
    }

    static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> EventID? {
        guard bytes.count == 36 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var nibbles = 0
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let value = EventID.hexValue(byte) else { return nil }
            if nibbles < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            nibbles += 1
        }
        return EventID(high: high, low: low)
    }

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

    public mutating func next() -> EventID {
        let milliseconds = UInt64(max(0, clock.now().microseconds / 1000)) & 0xFFFF_FFFF_FFFF
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
