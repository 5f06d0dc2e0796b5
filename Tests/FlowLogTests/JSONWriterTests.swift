import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogStore
import Testing

@testable import FlowLog

@Suite("JSON writer")
struct JSONWriterTests {
    /// The accepted answer is written in fixed fragments: the same bytes as member by member,
    /// separated from a value before it like any other value.
    @Test func answersAreWrittenAsTheirMembersWouldBe() {
        func acceptance(_ first: Int, _ count: Int, duplicate: Bool) -> CommandOutcome {
            .accepted(
                Acceptance(
                    stream: "s-1", receipt: CommandReceipt(firstPosition: first, eventCount: count, version: 7),
                    duplicate: duplicate, events: []))
        }
        #expect(FlowJSON.answer(acceptance(12, 1, duplicate: false)) == #"{"ok":true,"stream":"s-1","positions":[12],"version":7}"#)
        #expect(FlowJSON.answer(acceptance(3, 3, duplicate: true)) == #"{"ok":true,"stream":"s-1","positions":[3,4,5],"version":7,"duplicate":true}"#)
        #expect(FlowJSON.answer(acceptance(3, 0, duplicate: false)) == #"{"ok":true,"stream":"s-1","positions":[],"version":7}"#)
        // On the stack, or member by member (a stream that needs escaping, or too many positions
        // for the buffer): the same bytes.
        for (stream, count) in [("s-1", 1), ("s-1", 90), ("a\"b", 2), (String(repeating: "x", count: 64), 3)] {
            let outcome = Acceptance(
                stream: stream, receipt: CommandReceipt(firstPosition: 999_990, eventCount: count, version: 123_456_789),
                duplicate: count == 2, events: [])
            var fast = JSONWriter()
            var fragments = JSONWriter()
            FlowJSON.writeAcceptance(outcome, into: &fast)
            FlowJSON.writeAcceptanceByMembers(outcome, into: &fragments)
            #expect(fast.text == fragments.text)
            #expect(fast.text.hasSuffix(#","version":123456789}"#) || fast.text.hasSuffix(#","duplicate":true}"#))
        }
        var json = JSONWriter()
        json.beginArray()
        FlowJSON.writeAnswer(acceptance(1, 1, duplicate: false), into: &json)
        FlowJSON.writeAnswer(.rejected(stream: "s\"2", Rejection(.invalidTab, "empty")), into: &json)
        FlowJSON.writeAnswer(acceptance(2, 1, duplicate: false), into: &json)
        json.endArray()
        #expect(
            json.text
                == #"[{"ok":true,"stream":"s-1","positions":[1],"version":7},{"ok":false,"stream":"s\"2","error":{"code":"invalidTab","message":"empty"}},{"ok":true,"stream":"s-1","positions":[2],"version":7}]"#
        )
    }

    @Test func integersAreWrittenInDecimalAsSwiftPrintsThem() {
        var values = Array(-1_000...1_000) + [Int.min, Int.max, Int.min + 1, Int.max - 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power, 7 * power + 3]
        }
        var json = JSONWriter()
        json.beginArray()
        for value in values { json.int(value) }
        json.endArray()
        #expect(json.text == "[" + values.map(String.init).joined(separator: ",") + "]")
    }

    /// Exports keep DEL as it is (JSON does not ask more); lines meant for terminals escape it too.
    @Test func delIsEscapedOnlyWhenAsked() {
        var export = JSONWriter()
        export.string("a\u{7F}b\u{1}\"")
        #expect(export.bytes == Array("\"a\u{7F}b\\u0001\\\"\"".utf8))
        var terminal = JSONWriter()
        terminal.escapesDelete = true
        terminal.string("a\u{7F}b\u{1}\"")
        #expect(terminal.text == #""a\u007fb\u0001\"""#)
        #expect(!terminal.bytes.contains(0x7F))
    }

    @Test func aTimestampIsWrittenAsItsRFC3339String() {
        let time = Timestamp(microseconds: 1_700_000_000_123_456)
        var json = JSONWriter()
        json.beginArray()
        json.timestamp(time)
        json.endArray()
        #expect(json.text == "[\"\(time.description)\"]")
        #expect(time.description == "2023-11-14T22:13:20.123456Z")
    }
}
