/// Writes compact JSON into a byte buffer, in the key order the caller gives, so that output is
/// byte-for-byte reproducible (SPEC §5's faces and the exports depend on that).
public struct JSONWriter {
    public package(set) var bytes: [UInt8] = []
    /// One bit per open level (innermost lowest): whether the next value there needs a comma first.
    /// A bit stack rather than an array keeps the hot path free of allocation and uniqueness checks.
    package var commaBits: UInt64 = 0
    /// The last calendar day an event line wrote (`EventLine`): an export's events mostly share
    /// their day, and turning days into dates was a twentieth of an export's time.
    package var lastDay = DayText()
    /// Also escape DEL (0x7F), as lines meant for terminals want (the server's access log); JSON
    /// itself does not ask it, and exports keep their bytes.
    public var escapesDelete = false

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        commaBits = 0
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        commaBits <<= 1
    }
    public mutating func endObject() {
        commaBits >>= 1
        bytes.append(UInt8(ascii: "}"))
    }
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        commaBits <<= 1
    }
    public mutating func endArray() {
        commaBits >>= 1
        bytes.append(UInt8(ascii: "]"))
    }

    /// A member name; the next value written is its value.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        commaBits &= ~1
    }

    /// Appends a fragment of JSON as it is, with no separator logic: for fixed layouts on hot paths,
    /// such as `{"position":` or `,"stream":`. The caller keeps the result valid JSON.
    @inline(__always)
    public mutating func raw(_ fragment: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: fragment.utf8Start, count: fragment.utf8CodeUnitCount))
    }

    /// A string value with no separator logic, for use after `raw`.
    public mutating func rawString(_ value: String) {
        commaBits &= ~1
        string(value)
    }

    /// A declared name (an event type) as a string value with no separator logic, for use after
    /// `raw`. Declared names are identifiers: nothing in them needs escaping.
    @inline(__always)
    public mutating func rawName(_ name: StaticString) {
        commaBits &= ~1
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
    }

    /// An integer with no separator logic, for use after `raw`.
    public mutating func rawInt(_ value: Int) {
        commaBits &= ~1
        int(value)
    }

    /// A member name that is only known at run time.
    public mutating func key(dynamic name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        commaBits &= ~1
    }

    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Most text needs no escaping: copy it in one go.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 { appendEscaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""):
            bytes.append(0x5C)
            bytes.append(0x22)
        case UInt8(ascii: "\\"):
            bytes.append(0x5C)
            bytes.append(0x5C)
        case 0x0A:
            bytes.append(0x5C)
            bytes.append(UInt8(ascii: "n"))
        case 0x0D:
            bytes.append(0x5C)
            bytes.append(UInt8(ascii: "r"))
        case 0x09:
            bytes.append(0x5C)
            bytes.append(UInt8(ascii: "t"))
        case 0..<0x20,
            0x7F where escapesDelete:
            bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(EventID.hexDigits[Int(byte >> 4)])
            bytes.append(EventID.hexDigits[Int(byte & 0xF)])
        default: bytes.append(byte)
        }
    }

    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func int(_ value: Int) {
        separate()
        if 0 <= value, value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        // Two digits at a time into a buffer on the stack, then one copy: exports and states write
        // millions of integers.
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            Self.digitPairs.withUTF8Buffer { pairs in
                while magnitude >= 10 {
                    let pair = Int(magnitude % 100) &* 2
                    magnitude /= 100
                    start -= 2
                    buffer[start] = pairs[pair]
                    buffer[start + 1] = pairs[pair + 1]
                }
            }
            if magnitude > 0 {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: magnitude) &+ 48
            }
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// "00" through "99", for writing integers two digits at a time.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859606162636465666768697071727374757677787980\
        81828384858687888990919293949596979899
        """

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    /// Writes an already-parsed JSON value (used to echo input back).
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .integer(let number): int(number)
        case .bigInteger(let digits):
            separate()
            bytes.append(contentsOf: Array(digits.utf8))
        case .number(let number):
            separate()
            bytes.append(contentsOf: Array("\(number)".utf8))
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, member) in members {
                key(dynamic: name)
                self.value(member)
            }
            endObject()
        }
    }

    @inline(__always)
    /// Bytes of a whole value, after a separator where one is due.
    package mutating func appendSeparated(_ value: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(contentsOf: value)
    }

    /// A value that is already JSON (a message kept as sent, a formatted amount), as the next value.
    public mutating func encodedValue(_ json: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
    }

    package mutating func separate() {
        if commaBits & 1 != 0 { bytes.append(UInt8(ascii: ",")) }
        commaBits |= 1
    }
}

extension JSONWriter {
    /// `text` as a JSON string literal, quotes and escapes included.
    public static func quoted(_ text: String) -> String {
        var json = JSONWriter()
        json.string(text)
        return json.text
    }

    /// Ends one line of NDJSON; the next value starts a new top-level value.
    public mutating func newline() {
        bytes.append(0x0A)
        commaBits = 0
    }
}

/// A day since the epoch and its `YYYY-MM-DD` as the ten bytes a line holds.
package struct DayText {
    package var days = Int64.min
    package var text: (UInt64, UInt16) = (0, 0)

    package init() {}

    package init(days: Int64, text: (UInt64, UInt16)) { (self.days, self.text) = (days, text) }
}
