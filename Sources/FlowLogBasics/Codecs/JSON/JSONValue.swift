/// A parsed JSON value, as strict as RFC 8259, with integers kept apart from other numbers so that
/// `"quantity": 2.5` is refused as the wrong type rather than silently rounded.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// An integer literal within 64 bits.
    case integer(Int)
    /// An integer literal beyond 64 bits, kept as its digits: no field holds one, so every reader
    /// refuses it with the field's own error and the value as written. Clamping it to `Int.max`
    /// once let an import store a number other than the one it was given.
    case bigInteger(String)
    /// A number with a fraction or an exponent.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in their order; for a repeated key the last one counts, as most JSON readers do.
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.bigInteger(let a), .bigInteger(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .bigInteger: "an integer beyond 64 bits"
        case .number: "a number written with a decimal point or an exponent"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a text is not JSON, with the byte offset where reading stopped.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "\(reason) at byte \(offset + 1)" }

    package init(offset: Int, reason: String) { (self.offset, self.reason) = (offset, reason) }
}

/// A small recursive-descent JSON parser over UTF-8 bytes: the tree of a value, built on the
/// lexical rules every JSON reader shares (`JSONLexer`). Nesting is bounded so that hostile input
/// cannot exhaust the stack.
public struct JSONParser {
    public static let maximumDepth = JSONLexer.maximumDepth

    private var lexer: JSONLexer
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        lexer = JSONLexer(bytes)
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.lexer.skipWhitespace()
        let value = try parser.parseValue()
        parser.lexer.skipWhitespace()
        guard parser.lexer.offset == bytes.count else { throw parser.lexer.error("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var copy = text
        let result = copy.withUTF8 { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(UnsafeRawBufferPointer(buffer)) }
        }
        return try result.get()
    }

    private func error(_ reason: String) -> JSONSyntaxError { lexer.error(reason) }

    /// The byte at the reading position, or `nil` at the end (no whitespace skipped).
    private var current: UInt8? { lexer.offset < lexer.bytes.count ? lexer.bytes[lexer.offset] : nil }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try lexer.string())
        case UInt8(ascii: "t"):
            try lexer.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try lexer.expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try lexer.expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try lexer.number()
        default: throw error("unexpected character")
        }
    }

    private mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        var members: [(String, JSONValue)] = []
        guard try opens(closing: "}") else { return .object(members) }
        repeat {
            guard lexer.peek() == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let key = try lexer.string()
            guard lexer.peek() == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            lexer.offset += 1
            lexer.skipWhitespace()
            members.append((key, try parseValue()))
        } while try continues(closing: "}", "object")
        return .object(members)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        guard try opens(closing: "]") else { return .array(elements) }
        repeat {
            lexer.skipWhitespace()
            elements.append(try parseValue())
        } while try continues(closing: "]", "array")
        return .array(elements)
    }

    /// Steps over an object's or array's opening bracket; `false` when the bracket that closes it
    /// follows at once (an empty one, stepped over too).
    private mutating func opens(closing: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        lexer.offset += 1
        guard lexer.peek() == UInt8(ascii: closing) else { return true }
        lexer.offset += 1
        return false
    }

    /// After a member or element: `true` at a `,` (another follows), `false` at the closing
    /// bracket; both are stepped over.
    private mutating func continues(closing: Unicode.Scalar, _ container: String) throws(JSONSyntaxError) -> Bool {
        guard let byte = lexer.peek() else { throw error("the \(container) is not closed") }
        if byte == UInt8(ascii: ",") {
            lexer.offset += 1
            return true
        }
        if byte == UInt8(ascii: closing) {
            lexer.offset += 1
            return false
        }
        throw error("expected ',' or '\(closing)' in an \(container)")
    }
}
