import FlowLogBasics
import Testing

/// `plainStringBytes` tests eight bytes at a time before it tests one at a time, so a quote, a
/// backslash or a control byte must stop it wherever it falls: in the first word, a later one,
/// or the tail that is shorter than a word.
struct JSONScannerTests {
    /// `"` + `length` letters + `ending` + `rest`, scanned from the start.
    private func plain(length: Int, ending: String, rest: String = "") -> (slice: String?, offset: Int) {
        let text = "\"" + String(repeating: "a", count: length) + ending + rest
        return Array(text.utf8).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            let slice = scanner.plainStringBytes().map { String(decoding: $0, as: UTF8.self) }
            return (slice, scanner.offset)
        }
    }

    @Test func aQuoteEndsTheStringAtAnyOffset() {
        for length in 0..<40 {
            let scanned = plain(length: length, ending: "\"", rest: #","b":"c\"d"}"#)
            #expect(scanned.slice == String(repeating: "a", count: length), "length \(length)")
            #expect(scanned.offset == length + 2, "length \(length)")
        }
    }

    @Test func aBackslashOrControlByteAtAnyOffsetIsNotPlain() {
        for ending in ["\\n\"", "\\\"\"", "\u{01}\"", "\n\"", "\u{1F}\""] {
            for length in 0..<40 {
                #expect(
                    plain(length: length, ending: ending, rest: "zzzzzzzzzzzz").slice == nil, "length \(length), ending \(ending.debugDescription)")
            }
        }
    }

    @Test func bytesJustAboveTheFlaggedOnesAreNotMistakenForThem() {
        // 0x20 (space), 0x21 (!), 0x23 (#), 0x5B ([), 0x5D (]) and UTF-8 above 0x7F sit next to the
        // three flagged values; none of them may end or refuse a string.
        let neighbours = " !#[]é\u{7F}"
        for length in 0..<20 {
            let text = String(repeating: "a", count: length) + neighbours + neighbours
            let scanned = Array(("\"" + text + "\",").utf8).withUnsafeBytes { bytes in
                var scanner = JSONScanner(bytes)
                return scanner.plainStringBytes().map { String(decoding: $0, as: UTF8.self) }
            }
            #expect(scanned == text, "length \(length)")
        }
    }

    @Test func anUnclosedStringIsNotPlain() {
        for length in 0..<20 {
            #expect(plain(length: length, ending: "").slice == nil, "length \(length)")
        }
    }

    private func integer(_ text: String) -> (value: Int?, offset: Int) {
        Array(text.utf8).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            let value = scanner.integer()
            return (value, scanner.offset)
        }
    }

    /// Up to 17 digits take the unchecked loop, 18 and more the checked one; both must agree with
    /// JSON's grammar and with 64-bit range.
    @Test func integersOfEveryLengthAreReadOrRefusedAsJSONAndInt64Say() {
        var digits = "1"
        for length in 1...18 {
            #expect(integer(digits + ",").value == Int(digits), "\(length) digits")
            #expect(integer("-" + digits + "}").value == -Int(digits)!, "-\(length) digits")
            #expect(integer(digits).offset == length, "\(length) digits consumed")
            digits += String(length % 10)
        }
        #expect(integer("9223372036854775807").value == Int.max)
        #expect(integer("9223372036854775808").value == nil, "past Int.max")
        #expect(integer("-9223372036854775807").value == -Int.max)
        #expect(integer("123456789012345678901").value == nil)
        #expect(integer("0").value == 0)
        #expect(integer("-0").value == 0)
        #expect(integer("07").value == nil, "a leading zero")
        #expect(integer("-").value == nil)
        #expect(integer("12.5").value == nil, "a fraction")
        #expect(integer("12e3").value == nil, "an exponent")
        #expect(integer("x").value == nil)
        #expect(integer("  42 ").value == 42, "whitespace before")
    }
}
