import FlowLogSystem

/// A pull scanner over one JSON text, for hot paths that know the shape they expect (an exported event)
/// and want its members without building a `JSONValue` tree: keys are compared as bytes, and only the
/// values that are kept become Strings. Anything unexpected is reported as a `JSONSyntaxError`, or
/// handed back to the caller to judge.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: offset, reason: reason) }

    mutating func skipWhitespace() {
        while offset < bytes.count, bytes[offset] == 0x20 || bytes[offset] == 0x09 || bytes[offset] == 0x0A || bytes[offset] == 0x0D {
            offset += 1
        }
    }

    /// The next byte after whitespace, without consuming it.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw error("expected \(what)") }
        offset += 1
    }

    /// Starts an object: `{`.
    mutating func beginObject() throws(JSONSyntaxError) { try expect(UInt8(ascii: "{"), "an object") }

    /// The next member's key (a slice of the text, escapes not allowed in keys) with the `:` consumed,
    /// or `nil` at the object's end (`}` consumed).
    mutating func nextKey(first: inout Bool) throws(JSONSyntaxError) -> UnsafeRawBufferPointer? {
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return nil
        }
        if !first { try expect(UInt8(ascii: ","), "',' or '}' in an object") }
        first = false
        try expect(UInt8(ascii: "\""), "a member name in quotes")
        let start = offset
        while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
            guard bytes[offset] != UInt8(ascii: "\\") else { throw error("an escape in a member name") }
            offset += 1
        }
        guard offset < bytes.count else { throw error("the member name is not closed") }
        let key = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
        offset += 1
        try expect(UInt8(ascii: ":"), "':' after a member name")
        return key
    }

    /// Whether the next value is `null` (consumed if so).
    mutating func takeNull() -> Bool {
        guard peek() == UInt8(ascii: "n"), offset + 4 <= bytes.count,
            bytes[offset + 1] == UInt8(ascii: "u"), bytes[offset + 2] == UInt8(ascii: "l"), bytes[offset + 3] == UInt8(ascii: "l")
        else { return false }
        offset += 4
        return true
    }

    /// A string value whose raw bytes hold no escapes, as a slice of the text (for ids and times);
    /// `nil` when the next value is not such a string.
    mutating func plainStringBytes() -> UnsafeRawBufferPointer? {
        guard peek() == UInt8(ascii: "\""), let base = bytes.baseAddress else { return nil }
        // Every line of an import passes through here five times or more. Eight bytes are tested
        // at once for a quote, a backslash or a control byte (the usual SWAR bit tricks; the lowest
        // flagged byte is exact, bytes above it may be false alarms), then one byte a load.
        let count = bytes.count
        var end = offset + 1
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while end + 8 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: end, as: UInt64.self))
            let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let flagged = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) & ~word) & highs
            if flagged != 0 {
                end &+= flagged.trailingZeroBitCount >> 3
                break
            }
            end &+= 8
        }
        while end < count {
            let byte = base.load(fromByteOffset: end, as: UInt8.self)
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end &+= 1
        }
        guard end < count, base.load(fromByteOffset: end, as: UInt8.self) == UInt8(ascii: "\"") else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset + 1..<end])
        offset = end + 1
        return slice
    }

    /// A string value of exactly `length` bytes, given to `parse`; consumed when `parse` accepts it.
    /// The bytes inside are not scanned: this is for fixed layouts (UUIDs, times) whose parsers
    /// refuse any quote, backslash or control byte themselves, so a value they accept is one that
    /// `plainStringBytes` would have read the same.
    @inline(__always)
    mutating func fixedLengthString<Value>(_ length: Int, _ parse: (UnsafeRawBufferPointer) -> Value?) -> Value? {
        guard offset + length + 2 <= bytes.count, let base = bytes.baseAddress,
            base.load(fromByteOffset: offset, as: UInt8.self) == UInt8(ascii: "\""),
            base.load(fromByteOffset: offset + length + 1, as: UInt8.self) == UInt8(ascii: "\""),
            let value = parse(UnsafeRawBufferPointer(start: base + offset + 1, count: length))
        else { return nil }
        offset += length + 2
        return value
    }

    /// Any value, parsed fully with `JSONParser` (strings with escapes, numbers, nested values).
    mutating func value() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let start = offset
        try skipValue()
        return try JSONParser.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
    }

    /// A string value as a String (escapes decoded, UTF-8 checked).
    mutating func string() throws(JSONSyntaxError) -> String? {
        if let plain = plainStringBytes() {
            if plain.allSatisfy({ $0 < 0x80 }) { return String(decoding: plain, as: UTF8.self) }
            guard let text = String(validating: plain, as: UTF8.self) else { throw error("a string that is not valid UTF-8") }
            return text
        }
        guard case .string(let text) = try value() else { return nil }
        return text
    }

    /// An integer literal (no fraction, no exponent, within 64 bits), or `nil` for anything else.
    mutating func integer() -> Int? {
        guard let first = peek(), let base = bytes.baseAddress else { return nil }
        // Up to 18 digits cannot overflow: read those without overflow checks, and leave anything
        // longer to the checked loop.
        let negative = first == UInt8(ascii: "-")
        let start = negative ? offset + 1 : offset
        var index = start
        var value = 0
        while index < bytes.count, index - start < 18 {
            let digit = base.load(fromByteOffset: index, as: UInt8.self) &- 48
            if digit > 9 { break }
            value = value &* 10 &+ Int(digit)
            index += 1
        }
        let digits = index - start
        if digits < 18 {
            guard digits > 0, digits == 1 || base.load(fromByteOffset: start, as: UInt8.self) != 48 else { return nil }
            if index < bytes.count {
                let next = base.load(fromByteOffset: index, as: UInt8.self)
                if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") { return nil }
            }
            offset = index
            return negative ? -value : value
        }
        return checkedInteger(first)
    }

    /// `integer()` for literals of 18 digits or more, checking every step for overflow.
    private mutating func checkedInteger(_ first: UInt8) -> Int? {
        var index = offset
        var negative = false
        if first == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(bytes[index] - 48))
            guard !o1, !o2 else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        guard digits > 0, digits == 1 || bytes[index - digits] != 48 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            return nil
        }
        offset = index
        return negative ? -value : value
    }

    /// `true` or `false`, or `nil` for anything else.
    /// Every letter is checked: `fa,se` is not `false` (an earlier version looked at two letters).
    mutating func bool() -> Bool? {
        guard let first = peek() else { return nil }
        if first == UInt8(ascii: "t") { return literal("true") ? true : nil }
        if first == UInt8(ascii: "f") { return literal("false") ? false : nil }
        return nil
    }

    /// Skips one value of any kind, checking only its outline (strings, brackets); a full parse of
    /// what is skipped is `value()`'s job.
    mutating func skipValue() throws(JSONSyntaxError) {
        skipWhitespace()
        var depth = 0
        repeat {
            guard offset < bytes.count else { throw error("the text ends inside a value") }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
                    offset += bytes[offset] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard offset < bytes.count else { throw error("the string is not closed") }
                offset += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth <= JSONParser.maximumDepth else { throw error("nesting too deep") }
                offset += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                offset += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x09, 0x0A, 0x0D:
                guard depth > 0 else { return }
                offset += 1
            default:
                offset += 1
            }
        } while depth > 0
            || (offset < bytes.count && !Self.endsScalar(bytes[offset]) && bytes[offset - 1] != UInt8(ascii: "\"")
                && bytes[offset - 1] != UInt8(ascii: "}") && bytes[offset - 1] != UInt8(ascii: "]"))
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x09 || byte == 0x0A
            || byte == 0x0D
    }

    /// Whether only whitespace is left.
    mutating func atEnd() -> Bool { peek() == nil }

    /// Whether the text goes on with exactly `fragment` (no whitespace skipped); consumed if so.
    /// Compared eight bytes at a time (the last word overlapping the one before): an import matches
    /// a dozen member names a line, and a call to `memcmp` cost more than the comparing.
    @inline(__always)
    mutating func literal(_ fragment: StaticString) -> Bool {
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
}

extension UnsafeRawBufferPointer {
    /// Byte equality with a static ASCII string, for matching keys without making Strings.
    @inline(__always)
    func equals(_ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && (count == 0 || memcmp(baseAddress!, text.utf8Start, count) == 0)
    }
}
