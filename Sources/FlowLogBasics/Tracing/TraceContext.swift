/// A W3C trace context (the `traceparent` and `tracestate` headers): which trace and span an event
/// was written in, kept with the event so that a projector's span, seconds later in another
/// process, can link back to the request that caused it.
///
/// Read from untrusted text (an HTTP header, a `send` line's `meta`, an export, `--traceparent`), so
/// the reader is strict and total: `traceparent` as W3C's version 00 writes it (lowercase hex, ids
/// not all zero); a later version's first four fields, as the recommendation asks of a reader; a
/// `tracestate` kept only when it is printable ASCII of at most `maximumStateLength` bytes
/// (W3C asks a vendor to pass on at least 512 characters), else dropped, as W3C says of an invalid one.
///
/// A final class rather than a struct: every recorded event holds an optional one, and a reference
/// costs a record eight bytes where the fields would cost fifty, on every copy in a replay.
public final class TraceContext: Hashable, Sendable, CustomStringConvertible {
    /// The trace id, 16 bytes as two big-endian halves (never both zero).
    public let traceHigh: UInt64
    public let traceLow: UInt64
    /// The id of the span the event was written in (never zero).
    public let spanID: UInt64
    /// The trace flags (bit 0: sampled).
    public let flags: UInt8
    /// The vendors' `tracestate`, as received.
    public let state: String?

    public static let maximumStateLength = 512

    public init?(traceHigh: UInt64, traceLow: UInt64, spanID: UInt64, flags: UInt8, state: String? = nil) {
        guard traceHigh | traceLow != 0, spanID != 0 else { return nil }
        (self.traceHigh, self.traceLow, self.spanID, self.flags) = (traceHigh, traceLow, spanID, flags)
        self.state = state.flatMap { Self.isValidState($0.utf8) ? $0 : nil }
    }

    /// Reads a `traceparent` (and its `tracestate`); nil when the `traceparent` is not one.
    public convenience init?(traceparent: String, tracestate: String? = nil) {
        var text = traceparent
        guard let fields = text.withUTF8({ Self.parse(UnsafeRawBufferPointer($0)) }) else { return nil }
        self.init(traceHigh: fields.high, traceLow: fields.low, spanID: fields.span, flags: fields.flags, state: tracestate)
    }

    /// Reads a `traceparent` from its bytes (an export's line); nil when they are not one.
    public convenience init?(traceparentBytes: UnsafeRawBufferPointer, tracestate: String? = nil) {
        guard let fields = Self.parse(traceparentBytes) else { return nil }
        self.init(traceHigh: fields.high, traceLow: fields.low, spanID: fields.span, flags: fields.flags, state: tracestate)
    }

    /// `00-TRACE-SPAN-FLAGS` in lowercase hex: what this context's `traceparent` header says.
    public var traceparent: String {
        var bytes: [UInt8] = Array("00-".utf8)
        bytes.reserveCapacity(55)
        Self.appendHex(traceHigh, digits: 16, to: &bytes)
        Self.appendHex(traceLow, digits: 16, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.appendHex(spanID, digits: 16, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.appendHex(UInt64(flags), digits: 2, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The trace id in 32 lowercase hex digits, as trace viewers search for it.
    public var traceID: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        Self.appendHex(traceHigh, digits: 16, to: &bytes)
        Self.appendHex(traceLow, digits: 16, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The span id in 16 lowercase hex digits.
    public var spanIDText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        Self.appendHex(spanID, digits: 16, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { traceparent }

    public static func == (lhs: TraceContext, rhs: TraceContext) -> Bool {
        lhs.traceHigh == rhs.traceHigh && lhs.traceLow == rhs.traceLow && lhs.spanID == rhs.spanID && lhs.flags == rhs.flags
            && lhs.state == rhs.state
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(traceHigh)
        hasher.combine(traceLow)
        hasher.combine(spanID)
    }

    /// The four fields of a `traceparent`'s bytes, or nil. Version 00 is exactly 55 bytes; a later
    /// version (not ff) may go on after a `-`.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> (high: UInt64, low: UInt64, span: UInt64, flags: UInt8)? {
        guard bytes.count >= 55, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash,
            let version = hex(bytes, 0, 2), version != 0xFF,
            version == 0 ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == dash),
            let high = hex(bytes, 3, 16), let low = hex(bytes, 19, 16), let span = hex(bytes, 36, 16),
            let flags = hex(bytes, 53, 2), high | low != 0, span != 0
        else { return nil }
        return (high, low, span, UInt8(flags))
    }

    private static let dash = UInt8(ascii: "-")

    /// `count` lowercase hex digits from `start` as a number; nil for any other byte.
    private static func hex(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ count: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in start..<start + count {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    private static func appendHex(_ value: UInt64, digits: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            bytes.append(EventID.hexDigits[Int(value >> UInt64(shift) & 0xF)])
        }
    }

    /// A `tracestate` kept: 1–512 bytes of printable ASCII (what its list-members are made of).
    private static func isValidState(_ utf8: some Collection<UInt8>) -> Bool {
        (1...maximumStateLength).contains(utf8.count) && utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
