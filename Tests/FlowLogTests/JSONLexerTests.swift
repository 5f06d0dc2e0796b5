import FlowLogBasics
import Testing

/// `JSONLexer` holds the lexical rules every JSON reader shares (the tree parser, the export
/// line's scanner, the command line's flat reader); these pin the parts whose fast forms could
/// drift from the general ones.
struct JSONLexerTests {
    private func lexing<Result>(_ text: String, _ body: (inout JSONLexer) -> Result) -> Result {
        Array(text.utf8).withUnsafeBytes { bytes in
            var lexer = JSONLexer(bytes)
            return body(&lexer)
        }
    }

    /// The run is tested eight bytes at a time: a byte above 0x7F counts wherever it falls, before
    /// the byte that ends the run, and never when it falls after it.
    @Test func aPlainRunIsASCIIExactlyWhenNoByteBeforeItsEndIsAbove0x7F() {
        for length in 0..<24 {
            for at in 0..<length {
                var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                bytes[at] = 0xC3
                let text = String(decoding: bytes, as: UTF8.self) + "\"zzzzzzzz"
                let (end, ascii) = lexing(text) { $0.plainRun(from: 0) }
                #expect(end == text.utf8.count - 9, "length \(length), at \(at)")
                #expect(!ascii, "length \(length), at \(at)")
            }
            let after = String(repeating: "a", count: length) + "\"é" + String(repeating: "b", count: 9)
            let (end, ascii) = lexing(after) { $0.plainRun(from: 0) }
            #expect(end == length && ascii, "length \(length): a byte past the quote is not the run's")
        }
    }

    @Test func aStringIsReadWithItsEscapesAndItsUTF8Checked() {
        func string(_ text: String) -> Swift.Result<String, JSONSyntaxError> {
            lexing(text) { lexer in Swift.Result { () throws(JSONSyntaxError) in try lexer.string() } }
        }
        #expect(string(#""caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \t""#) == .success("café 😀 \"q\" \\ / \t"))
        #expect(string("\"Café ☕\"") == .success("Café ☕"))
        #expect(string("\"a\u{01}b\"") == .failure(JSONSyntaxError(offset: 2, reason: "a control character inside a string must be escaped")))
        #expect(string(#""\ud83d""#) == .failure(JSONSyntaxError(offset: 7, reason: "a lone surrogate in a \u{5C}u escape")))
        #expect(string(#""ab"#) == .failure(JSONSyntaxError(offset: 3, reason: "the string is not closed")))
        let broken = [UInt8(ascii: "\""), 0xC3, UInt8(ascii: "\"")].withUnsafeBytes { bytes in
            var lexer = JSONLexer(bytes)
            return Swift.Result { () throws(JSONSyntaxError) in try lexer.string() }
        }
        #expect(broken == .failure(JSONSyntaxError(offset: 3, reason: "a string that is not valid UTF-8")))
    }

    /// `integer()` is the fast subset of `number()`: where it answers, `number()` answers the
    /// same integer; where it declines, `number()` holds something other than a 64-bit integer
    /// (or `-9223372036854775808`, which it leaves to `number()`).
    @Test func integerAnswersWhatNumberReadsAsAnInteger() {
        var texts = [
            "0", "-0", "7", "-7", "07", "-", "1.5", "1e3", "2E1", "1.", "9223372036854775807", "9223372036854775808",
            "-9223372036854775807", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
            String(repeating: "9", count: 40),
        ]
        var digits = "1"
        for length in 1...21 {
            texts += [digits, "-" + digits, digits + ".0", digits + "e1"]
            digits += String(length % 10)
        }
        for text in texts {
            let fast = lexing(text + ",") { lexer in lexer.integer().map { ($0, lexer.offset) } }
            let general = lexing(text + ",") { lexer in Swift.Result { () throws(JSONSyntaxError) in (try lexer.number(), lexer.offset) } }
            switch (fast, general) {
            case (let (value, end)?, .success(let (number, generalEnd))):
                #expect(number == .integer(value) && end == generalEnd, "\(text)")
            case (nil, .success(let (number, _))):
                if case .integer(let value) = number { #expect(value == Int.min, "\(text) declined, read as \(value)") }
            case (_?, .failure(let error)):
                Issue.record("\(text): integer() read it, number() refused it (\(error))")
            case (nil, .failure):
                break
            }
        }
    }

    /// The scanner's member names are strings by the lexer's rules (only escapes are refused, as
    /// the export reader never needs them): no raw control byte, valid UTF-8.
    @Test func theScannersMemberNamesFollowTheStringRules() {
        func key(_ bytes: [UInt8]) -> Swift.Result<String?, JSONSyntaxError> {
            bytes.withUnsafeBytes { text in
                var scanner = JSONScanner(text)
                var first = true
                return Swift.Result { () throws(JSONSyntaxError) in
                    try scanner.beginObject()
                    return try scanner.nextKey(first: &first).map { String(decoding: $0, as: UTF8.self) }
                }
            }
        }
        #expect(key(Array(#"{"naïve":1}"#.utf8)) == .success("naïve"))
        #expect(key(Array(#" { "a b" : 1}"#.utf8)) == .success("a b"))
        #expect(key(Array(#"{"a\"b":1}"#.utf8)) == .failure(JSONSyntaxError(offset: 3, reason: "an escape in a member name")))
        #expect(key(Array(#"{"ab"#.utf8)) == .failure(JSONSyntaxError(offset: 4, reason: "the member name is not closed")))
        #expect(
            key(Array("{\"a\tb\":1}".utf8)) == .failure(JSONSyntaxError(offset: 3, reason: "a control character inside a string must be escaped")))
        #expect(
            key([UInt8(ascii: "{"), UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: "1"), UInt8(ascii: "}")])
                == .failure(JSONSyntaxError(offset: 3, reason: "a string that is not valid UTF-8")))
    }

    /// Skipping a string finds its closing quote past escaped quotes and backslashes at any offset.
    @Test func skippingAStringStopsAtItsClosingQuoteOnly() {
        for length in 0..<20 {
            let padding = String(repeating: "a", count: length)
            for inner in [#"\""#, #"\\"#, #"\"\\"#, "é"] {
                let value = "\"" + padding + inner + padding + "\""
                let skipped = lexing(value + ",\"x\"") { lexer in (try? lexer.skipValue()).map { lexer.offset } }
                #expect(skipped == value.utf8.count, "length \(length), \(inner)")
            }
        }
        #expect(lexing(#""ab\"#) { lexer in (try? lexer.skipValue()) == nil })
    }
}
