/// Numbers, and the outline of a whole value: the rest of JSON's lexical rules (`JSONLexer`).
extension JSONLexer {
    // MARK: Numbers

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte &- 48 <= 9 }

    /// An integer literal (no fraction, no exponent) within 64 bits, consumed; `nil`, nothing
    /// consumed, for anything else, which `number()` reads or refuses. It answers `number()`'s
    /// `.integer` for every text but `-9223372036854775808`, which it declines as it always has
    /// (the export reader then words it as a value of the wrong type, and keeps those words).
    @inline(__always)
    package mutating func integer() -> Int? {
        guard offset < bytes.count, let base = bytes.baseAddress else { return nil }
        // Up to 18 digits cannot overflow: read those without overflow checks, and leave anything
        // longer to the checked loop.
        let negative = base.load(fromByteOffset: offset, as: UInt8.self) == UInt8(ascii: "-")
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
            if index < bytes.count, Self.continuesNumber(base.load(fromByteOffset: index, as: UInt8.self)) { return nil }
            offset = index
            return negative ? -value : value
        }
        return checkedInteger(negative: negative)
    }

    /// Whether `byte`, after an integer's digits, makes it a number with a fraction or an exponent.
    @inline(__always)
    private static func continuesNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    /// `integer()` for literals of 18 digits or more, checking every step for overflow.
    private mutating func checkedInteger(negative: Bool) -> Int? {
        var index = negative ? offset + 1 : offset
        var value = 0
        var digits = 0
        while index < bytes.count, Self.isDigit(bytes[index]) {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(bytes[index] - 48))
            guard !o1, !o2 else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        guard digits > 0, digits == 1 || bytes[index - digits] != 48 else { return nil }
        if index < bytes.count, Self.continuesNumber(bytes[index]) { return nil }
        offset = index
        return negative ? -value : value
    }

    /// At a `-` or a digit: any JSON number, as the tree keeps it. An integer within 64 bits is
    /// `.integer`; one beyond is `.bigInteger`, its digits as written (no field holds one, and each
    /// reader refuses it with its own words); a fraction or an exponent makes a `.number`, which
    /// must be finite (`1e999` is valid JSON but no double: kept as infinity, it was echoed back
    /// as `inf`, which is not JSON).
    package mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = offset
        var negative = false
        if bytes[offset] == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        guard offset < bytes.count, Self.isDigit(bytes[offset]) else { throw error("a number needs digits") }
        if bytes[offset] == UInt8(ascii: "0"), offset + 1 < bytes.count, Self.isDigit(bytes[offset + 1]) {
            throw error("a number may not start with 0")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        while offset < bytes.count, Self.isDigit(bytes[offset]) {
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
            guard offset < bytes.count, Self.isDigit(bytes[offset]) else { throw error("a fraction needs digits") }
            while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count, Self.isDigit(bytes[offset]) else { throw error("an exponent needs digits") }
            while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
        }
        if isInteger, !overflow {
            if magnitude <= UInt64(Int.max) { return .integer(negative ? -Int(magnitude) : Int(magnitude)) }
            if negative, magnitude == Int.min.magnitude { return .integer(Int.min) }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        if isInteger { return .bigInteger(text) }
        guard let number = Double(text), number.isFinite else { throw error("a number beyond what a double holds") }
        return .number(number)
    }

    // MARK: A value's outline

    /// Skips one value of any kind after whitespace, checking only its outline (strings closed,
    /// brackets within `maximumDepth`); what is skipped is the parser's to read in full.
    package mutating func skipValue() throws(JSONSyntaxError) {
        skipWhitespace()
        var depth = 0
        repeat {
            guard offset < bytes.count else { throw error("the text ends inside a value") }
            switch bytes[offset] {
            case UInt8(ascii: "\""):
                offset += 1
                while true {
                    offset = plainRun(from: offset).end
                    guard offset < bytes.count else { throw error("the string is not closed") }
                    if bytes[offset] == UInt8(ascii: "\"") { break }
                    offset += bytes[offset] == UInt8(ascii: "\\") ? 2 : 1
                }
                offset += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth <= Self.maximumDepth else { throw error("nesting too deep") }
                offset += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                offset += 1
            case let byte where byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") || Self.isWhitespace(byte):
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
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isWhitespace(byte)
    }
}
