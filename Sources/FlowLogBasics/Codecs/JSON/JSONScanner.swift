import FlowLogSystem

/// A pull scanner over one JSON text, for hot paths that know the shape they expect (an exported event)
/// and want its members without building a `JSONValue` tree: keys are compared as bytes, and only the
/// values that are kept become Strings. Anything unexpected is reported as a `JSONSyntaxError`, or
/// handed back to the caller to judge. Its whitespace, strings, numbers and literals are
/// `JSONLexer`'s, as the tree parser's are.
package struct JSONScanner {
    private var lexer: JSONLexer

    package init(_ bytes: UnsafeRawBufferPointer) {
        lexer = JSONLexer(bytes)
    }

    package var offset: Int { lexer.offset }

    package func error(_ reason: String) -> JSONSyntaxError { lexer.error(reason) }

    /// The next byte after whitespace, without consuming it.
    @inline(__always)
    package mutating func peek() -> UInt8? { lexer.peek() }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw error("expected \(what)") }
        lexer.offset += 1
    }

    /// Starts an object: `{`.
    package mutating func beginObject() throws(JSONSyntaxError) { try expect(UInt8(ascii: "{"), "an object") }

    /// The next member's key (a slice of the text, escapes not allowed in keys) with the `:` consumed,
    /// or `nil` at the object's end (`}` consumed). A key is a string by the lexer's rules: no raw
    /// control byte, valid UTF-8.
    package mutating func nextKey(first: inout Bool) throws(JSONSyntaxError) -> UnsafeRawBufferPointer? {
        if peek() == UInt8(ascii: "}") {
            lexer.offset += 1
            return nil
        }
        if !first { try expect(UInt8(ascii: ","), "',' or '}' in an object") }
        first = false
        try expect(UInt8(ascii: "\""), "a member name in quotes")
        let (end, ascii) = lexer.plainRun(from: lexer.offset)
        let key = UnsafeRawBufferPointer(rebasing: lexer.bytes[lexer.offset..<end])
        lexer.offset = end
        guard end < lexer.bytes.count else { throw error("the member name is not closed") }
        switch lexer.bytes[end] {
        case UInt8(ascii: "\""): break
        case UInt8(ascii: "\\"): throw error("an escape in a member name")
        default: throw error("a control character inside a string must be escaped")
        }
        guard ascii || String(validating: key, as: UTF8.self) != nil else { throw error("a string that is not valid UTF-8") }
        lexer.offset += 1
        try expect(UInt8(ascii: ":"), "':' after a member name")
        return key
    }

    /// Whether the next value is `null` (consumed if so).
    package mutating func takeNull() -> Bool {
        peek() == UInt8(ascii: "n") && lexer.literal("null")
    }

    /// A string value whose raw bytes hold no escapes, as a slice of the text (for ids and times);
    /// `nil` when the next value is not such a string. Its UTF-8 is not checked.
    @inline(__always)
    package mutating func plainStringBytes() -> UnsafeRawBufferPointer? {
        guard peek() == UInt8(ascii: "\""), let (range, _) = lexer.plainString() else { return nil }
        return UnsafeRawBufferPointer(rebasing: lexer.bytes[range])
    }

    /// A string value of exactly `length` bytes, given to `parse`; consumed when `parse` accepts it.
    /// The bytes inside are not scanned: this is for fixed layouts (UUIDs, times) whose parsers
    /// refuse any quote, backslash or control byte themselves, so a value they accept is one that
    /// `plainStringBytes` would have read the same.
    @inline(__always)
    package mutating func fixedLengthString<Value>(_ length: Int, _ parse: (UnsafeRawBufferPointer) -> Value?) -> Value? {
        let offset = lexer.offset
        guard offset + length + 2 <= lexer.bytes.count, let base = lexer.bytes.baseAddress,
            base.load(fromByteOffset: offset, as: UInt8.self) == UInt8(ascii: "\""),
            base.load(fromByteOffset: offset + length + 1, as: UInt8.self) == UInt8(ascii: "\""),
            let value = parse(UnsafeRawBufferPointer(start: base + offset + 1, count: length))
        else { return nil }
        lexer.offset += length + 2
        return value
    }

    /// Any value, parsed fully with `JSONParser` (strings with escapes, numbers, nested values)
    /// once its outline is skipped: an error in the outline is worded as the outline's.
    package mutating func value() throws(JSONSyntaxError) -> JSONValue {
        lexer.skipWhitespace()
        let start = lexer.offset
        try lexer.skipValue()
        return try JSONParser.parse(UnsafeRawBufferPointer(rebasing: lexer.bytes[start..<lexer.offset]))
    }

    /// A string value as a String (escapes decoded, UTF-8 checked); `nil`, nothing consumed,
    /// when the next value is not a string.
    package mutating func string() throws(JSONSyntaxError) -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        if let (range, ascii) = lexer.plainString() {
            guard let text = JSONLexer.text(UnsafeRawBufferPointer(rebasing: lexer.bytes[range]), ascii: ascii) else {
                throw error("a string that is not valid UTF-8")
            }
            return text
        }
        return try lexer.string()
    }

    /// An integer literal (no fraction, no exponent, within 64 bits), or `nil` for anything else.
    @inline(__always)
    package mutating func integer() -> Int? {
        guard peek() != nil else { return nil }
        return lexer.integer()
    }

    /// `true` or `false`, or `nil` for anything else.
    /// Every letter is checked: `fa,se` is not `false` (an earlier version looked at two letters).
    package mutating func bool() -> Bool? {
        guard let first = peek() else { return nil }
        if first == UInt8(ascii: "t") { return lexer.literal("true") ? true : nil }
        if first == UInt8(ascii: "f") { return lexer.literal("false") ? false : nil }
        return nil
    }

    /// Whether only whitespace is left.
    package mutating func atEnd() -> Bool { peek() == nil }

    /// Whether the text goes on with exactly `fragment` (no whitespace skipped); consumed if so.
    @inline(__always)
    package mutating func literal(_ fragment: StaticString) -> Bool { lexer.literal(fragment) }
}

extension UnsafeRawBufferPointer {
    /// Byte equality with a static ASCII string, for matching keys without making Strings.
    @inline(__always)
    package func equals(_ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && (count == 0 || memcmp(baseAddress!, text.utf8Start, count) == 0)
    }
}
