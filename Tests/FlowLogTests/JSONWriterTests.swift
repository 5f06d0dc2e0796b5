@testable import FlowLog
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
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
}
