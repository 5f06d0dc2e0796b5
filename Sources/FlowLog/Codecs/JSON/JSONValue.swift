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
}

/// A small recursive-descent JSON parser over UTF-8 bytes. Nesting is bounded so that hostile input
/// cannot exhaust the stack.
public struct JSONParser {
    public static let maximumDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var copy = text
        let result = copy.withUTF8 { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(UnsafeRawBufferPointer(buffer)) }
        }
        return try result.get()
    }

    private func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: offset, reason: reason) }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard offset < bytes.count else { throw error("the text ends where a value should be") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw error("unexpected end of text") }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
            throw error("unexpected character")
        }
        offset += count
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
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let key = try parseString()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            offset += 1
            skipWhitespace()
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
            skipWhitespace()
            elements.append(try parseValue())
        } while try continues(closing: "]", "array")
        return .array(elements)
    }

    /// Steps over an object's or array's opening bracket; `false` when the bracket that closes it
    /// follows at once (an empty one, stepped over too).
    private mutating func opens(closing: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        offset += 1
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: closing) else { return true }
        offset += 1
        return false
    }

    /// After a member or element: `true` at a `,` (another follows), `false` at the closing
    /// bracket; both are stepped over.
    private mutating func continues(closing: Unicode.Scalar, _ container: String) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw error("the \(container) is not closed") }
        if bytes[offset] == UInt8(ascii: ",") {
            offset += 1
            return true
        }
        if bytes[offset] == UInt8(ascii: closing) {
            offset += 1
            return false
        }
        throw error("expected ',' or '\(closing)' in an \(container)")
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = offset
        var negative = false
        if bytes[offset] == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw error("a number needs digits") }
        if bytes[offset] == UInt8(ascii: "0"), offset + 1 < bytes.count, isDigit(bytes[offset + 1]) {
            throw error("a number may not start with 0")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        while offset < bytes.count, isDigit(bytes[offset]) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[offset] - 48))
            overflow = overflow || o1 || o2
            magnitude = sum
            offset += 1
        }
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw error("a fraction needs digits") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw error("an exponent needs digits") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if isInteger, !overflow {
            if magnitude <= UInt64(Int.max) { return .integer(negative ? -Int(magnitude) : Int(magnitude)) }
            if negative, magnitude == Int.min.magnitude { return .integer(Int.min) }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        if isInteger { return .bigInteger(text) }
        // `1e999` is valid JSON but no double: kept as infinity, it was echoed back as `inf`, which is not.
        guard let number = Double(text), number.isFinite else { throw error("a number beyond what a double holds") }
        return .number(number)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        offset += 1
        let start = offset
        // Fast path: no escapes.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
                offset += 1
                return try validUTF8(slice)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("a control character inside a string must be escaped") }
            offset += 1
        }
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
                case UInt8(ascii: "u"):
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
                    utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default:
                    throw error("an unknown escape in a string")
                }
            default:
                if byte < 0x20 { throw error("a control character inside a string must be escaped") }
                utf8.append(byte)
                offset += 1
            }
        }
        throw error("the string is not closed")
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

    private func validUTF8(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> String {
        // ASCII (nearly every identifier and most names) is valid UTF-8 as it is.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw error("a string that is not valid UTF-8") }
        return text
    }
}
