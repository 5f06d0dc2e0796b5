import FlowLogBasics
import FlowLogStore
import Testing

/// `UTF8Check`, which stored strings are read through, accepts exactly what the standard library's
/// `String(validating:as:)` accepts, whatever the length and wherever the bad byte sits.
@Suite("UTF-8 check")
struct UTF8CheckTests {
    private func agrees(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { UTF8Check.isWellFormed($0) == (String(validating: $0, as: UTF8.self) != nil) }
    }

    @Test func everySequenceOfOneAndTwoBytes() {
        for first in 0...255 {
            #expect(agrees([UInt8(first)]))
            for second in 0...255 where !agrees([UInt8(first), UInt8(second)]) {
                Issue.record("disagrees on \([first, second])")
            }
        }
    }

    /// Every lead byte with continuation bytes at each boundary of Unicode's table 3-7 (overlong
    /// forms, surrogates, past U+10FFFF, missing and extra continuations).
    @Test func everyLeadWithBoundaryContinuations() {
        let trailing: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF]
        for lead in 0x80...0xFF {
            for second in trailing {
                for third in trailing {
                    #expect(agrees([UInt8(lead), second, third]))
                    for fourth in trailing where !agrees([UInt8(lead), second, third, fourth]) {
                        Issue.record("disagrees on \([lead, Int(second), Int(third), Int(fourth)])")
                    }
                }
            }
        }
    }

    /// ASCII of every length up to 40 with one byte set high at each place (the word-at-a-time
    /// check reads overlapping words), and well-formed text of every kind of scalar.
    @Test func aHighByteAnywhereAndWellFormedText() {
        for count in 0...40 {
            let ascii = [UInt8](repeating: UInt8(ascii: "a"), count: count)
            #expect(ascii.withUnsafeBytes { UTF8Check.isWellFormed($0) })
            for place in 0..<count {
                var bytes = ascii
                bytes[place] = 0x80
                #expect(!bytes.withUnsafeBytes { UTF8Check.isWellFormed($0) })
                bytes[place] = 0xC3
                #expect(agrees(bytes))
            }
        }
        for text in ["Mug", "café", "T-shirt 👕", "日本語のテキスト", "\u{10FFFF}\u{FFFD}\u{7F}\u{80}", String(repeating: "é", count: 70)] {
            #expect(Array(text.utf8).withUnsafeBytes { UTF8Check.isWellFormed($0) })
        }
    }

    @Test func theReaderRefusesAStringThatIsNotUTF8() {
        func read(_ bytes: [UInt8]) -> String?? {
            bytes.withUnsafeBytes { buffer -> String?? in
                var reader = BinaryReader(buffer)
                do { return .some(try reader.readShortString()) } catch { return .none }
            }
        }
        #expect(read([3, 0x4D, 0x75, 0x67]) == .some("Mug"))
        #expect(read([3, 0x4D, 0xFF, 0x67]) == .none)
        #expect(read([3, 0x4D, 0xC3, 0xA9]) == .some("Mé"))
    }
}
