import FlowDomain
import FlowLogBasics
import FlowLogHistory
import FlowLogStore
import Testing

/// The one splitter of NDJSON held in memory, and the one set of history-order rules, as the
/// server's batch endpoint and scratch sessions use them.
@Suite("NDJSON lines and history order")
struct NDJSONLinesTests {
    private func lines(_ text: [UInt8]) -> [String] {
        var found: [String] = []
        text.withUnsafeBytes { bytes in
            NDJSONLines.forEach(in: bytes) { line, number in
                #expect(number == found.count + 1)
                found.append(String(decoding: line, as: UTF8.self))
            }
        }
        return found
    }

    @Test func aByteOrderMarkCRLFEndingsAndAMissingLastNewlineAreReadAsAStreamReadsThem() {
        #expect(lines([0xEF, 0xBB, 0xBF] + Array("a\r\nb\n\nc".utf8)) == ["a", "b", "", "c"])
        #expect(lines(Array("a\n".utf8)) == ["a"])
        #expect(lines([]) == [])
        #expect(lines([0xEF, 0xBB]) == ["\u{FFFD}"], "two bytes of a mark are not a mark")
    }

    private func record(_ position: Int, _ stream: String, _ version: Int) -> RecordedEvent {
        RecordedEvent(
            position: position, stream: stream, version: version, eventId: EventID(high: 0, low: UInt64(position)),
            timestamp: Timestamp(microseconds: 0), actor: .user, event: .navigation(.modalDismissed))
    }

    @Test func aSessionTakesPositionGapsButNotVersionGaps() {
        var order = HistoryOrder(allowingPositionGaps: true, allowingVersionGaps: false, gapHint: "Export whole streams.")
        #expect(order.admit(record(3, "a", 1), line: 1) == nil)
        #expect(order.admit(record(9, "a", 2), line: 2) == nil, "a gap in positions: another stream's events were left out")
        #expect(order.admit(record(12, "a", 4), line: 3)?.contains("version 3 of stream a is missing") == true)
        #expect(order.admit(record(12, "b", 1), line: 4) == nil)
        #expect(order.admit(record(12, "b", 2), line: 5)?.contains("again") == true)
        var strict = HistoryOrder(allowingGaps: false)
        #expect(strict.admit(record(1, "a", 1), line: 1) == nil)
        #expect(strict.admit(record(3, "a", 2), line: 2)?.contains("--allow-gaps") == true)
    }
}
