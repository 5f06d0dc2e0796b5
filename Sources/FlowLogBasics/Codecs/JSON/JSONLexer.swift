/// JSON's lexical rules (RFC 8259) in one place, for every reader of JSON text FlowLog has: the
/// tree parser (`JSONParser`), the export line's pull scanner (`JSONScanner`) and the command
/// line's flat reader (`FlatObject`). What whitespace is, where a string ends and what may stand
/// in it, how escapes and UTF-8 are checked, which numbers are integers within 64 bits, the
/// literals, and how deep values nest: each is written once here, and the readers differ only in
/// what they build (a tree, members pulled by name, a flat list of members).
///
/// Position is an offset into the text; nothing here skips whitespace unless its name says so.
/// The hot parts are `@inline(__always)`, so a reader that uses them pays no call for sharing them.
package struct JSONLexer {
    let bytes: UnsafeRawBufferPointer
    package var offset: Int

    /// How deep objects and arrays may nest in any value read, so that hostile input cannot
    /// exhaust the stack.
    static let maximumDepth = 64

    @inline(__always)
    package init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    package func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: offset, reason: reason) }

    // MARK: Whitespace

    /// Space, tab, line feed and carriage return: JSON's whitespace, and nothing else.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    @inline(__always)
    mutating func skipWhitespace() {
        while offset < bytes.count, Self.isWhitespace(bytes[offset]) { offset += 1 }
    }

    /// The next byte after whitespace (which is consumed), without consuming it; `nil` at the end.
    @inline(__always)
    package mutating func peek() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    // MARK: Literals

    /// Whether the text goes on with exactly `fragment` (no whitespace skipped); consumed if so.
    /// Compared eight bytes at a time (the last word overlapping the one before): an import matches
    /// a dozen member names a line, and a call to `memcmp` cost more than the comparing.
    @inline(__always)
    package mutating func literal(_ fragment: StaticString) -> Bool {
        let count = fragment.utf8CodeUnitCount
        guard offset + count <= bytes.count, let base = bytes.baseAddress else { return false }
        let text = base + offset
        let expected = UnsafeRawPointer(fragment.utf8Start)
        if count >= 8 {
            var index = 0
            while index + 8 < count {
                guard text.loadUnaligned(fromByteOffset: index, as: UInt64.self) == expected.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                else { return false }
                index += 8
            }
            guard text.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == expected.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            else { return false }
        } else {
            for index in 0..<count where text.load(fromByteOffset: index, as: UInt8.self) != expected.load(fromByteOffset: index, as: UInt8.self) {
                return false
            }
        }
        offset += count
        return true
    }

    /// `literal`, or the parser's error where the text does not go on with it.
    mutating func expectLiteral(_ fragment: StaticString) throws(JSONSyntaxError) {
        guard offset + fragment.utf8CodeUnitCount <= bytes.count else { throw error("unexpected end of text") }
        guard literal(fragment) else { throw error("unexpected character") }
    }

    // MARK: Strings

    /// Where the run of plain string bytes from `start` ends: at the first quote, backslash or
    /// control byte (what ends a string, starts an escape, or may not stand in one), or at the end
    /// of the text; and whether the run is all ASCII (so valid UTF-8 as it is).
    ///
    /// Every string of an import and of `send` passes through here. Eight bytes are tested at once
    /// (the usual SWAR bit tricks; the lowest flagged byte is exact, bytes above it may be false
    /// alarms), then one byte a load.
    @inline(__always)
    package func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return (start, true) }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var end = start
        var seen: UInt64 = 0
        while end + 8 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: end, as: UInt64.self))
            let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let flagged = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) & ~word) & highs
            if flagged != 0 {
                let below = flagged.trailingZeroBitCount & ~7
                seen |= word & ((1 &<< UInt64(below)) &- 1)
                return (end &+ below >> 3, seen & highs == 0)
            }
            seen |= word
            end &+= 8
        }
        while end < count {
            let byte = base.load(fromByteOffset: end, as: UInt8.self)
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            seen |= UInt64(byte)
            end &+= 1
        }
        return (end, seen & highs == 0)
    }

    /// At an opening quote: a string without escapes or control bytes, as the range of its bytes
    /// between the quotes (consumed), and whether they are all ASCII; `nil` (nothing consumed) for
    /// anything else, which `string()` reads or refuses. Its UTF-8 is not checked: see `text`.
    @inline(__always)
    package mutating func plainString() -> (range: Range<Int>, ascii: Bool)? {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { return nil }
        let start = offset + 1
        let (end, ascii) = plainRun(from: start)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        offset = end + 1
        return (start..<end, ascii)
    }

    /// A string's bytes as a String when they are valid UTF-8; `ascii` when `plainRun` found
    /// them ASCII (nearly every identifier and most names), which is valid as it is.
    @inline(__always)
    package static func text(_ bytes: UnsafeRawBufferPointer, ascii: Bool) -> String? {
        ascii ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// At an opening quote: the string, escapes decoded and UTF-8 checked.
    package mutating func string() throws(JSONSyntaxError) -> String {
        offset += 1
        let start = offset
        let (end, ascii) = plainRun(from: start)
        offset = end
        if end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                guard let text = Self.text(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), ascii: ascii) else {
                    throw error("a string that is not valid UTF-8")
                }
                return text
            }
            if byte != UInt8(ascii: "\\") { throw error("a control character inside a string must be escaped") }
        }
        return try escapedString(from: start)
    }

    /// The rest of a string from the first escape at `offset`, its plain start at `start`.
    private mutating func escapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let text = String(validating: utf8, as: UTF8.self) else { throw error("a string that is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                offset += 1
                guard offset < bytes.count else { throw error("the string is not closed") }
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: String(Character(try unicodeEscape())).utf8)
                default: throw error("an unknown escape in a string")
                }
            default:
                if byte < 0x20 { throw error("a control character inside a string must be escaped") }
                utf8.append(byte)
                offset += 1
            }
        }
        throw error("the string is not closed")
    }

    /// After `\u`: the scalar its four hex digits name, with the low half of a surrogate pair.
    private mutating func unicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                throw error("a lone surrogate in a \\u escape")
            }
            offset += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate in a \\u escape") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw error("a lone surrogate in a \\u escape")
        }
        return Unicode.Scalar(scalar)!
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = EventID.hexValue(bytes[offset]) else { throw error("a \\u escape needs four hex digits") }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }
}
