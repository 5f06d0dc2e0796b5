import FlowLog
import FlowLogBasics

/// The JSON value parser (`JSONParser`), under every JSON FlowLog reads: command lines, `meta`,
/// exported `data`, the server's request bodies. The input is one JSON text.
///
/// Neither the parser nor the export reader's scanner traps; a value the parser reads, the scanner
/// reads the same; a value written back (`JSONWriter.value`, how input is echoed) is JSON that
/// parses to the same value; and the lexer's fast integer (the fast readers') reads a leading
/// number as its full number reading does.
enum JSONValueTarget {
    static let target = FuzzTarget(
        name: "json-value",
        checks: "a JSON text: the parser and the scanner read the same value; a value written back parses to the same value",
        run: run
    )

    @Sendable static func run(_ text: UnsafeRawBufferPointer) {
        checkIntegers(text)
        let scanned = ReadingPaths.jsonValueByScanner(text)
        let value: JSONValue
        do throws(JSONSyntaxError) {
            value = try JSONParser.parse(text)
        } catch {
            _ = error.description
            return
        }
        fuzzCheck(scanned == .success(value), "the parser read \(value), the scanner \(scanned)")
        var writer = JSONWriter()
        writer.value(value)
        let again = writer.bytes.withUnsafeBytes { bytes in Result { () throws(JSONSyntaxError) in try JSONParser.parse(bytes) } }
        fuzzCheck(again == .success(value), "\(value) was written as \(writer.text), which parses as \(again)")
    }

    /// Where the fast integer answers, the full reading is the same integer ending at the same byte;
    /// where it declines, the full reading is no 64-bit integer (but `Int.min`, left to it).
    static func checkIntegers(_ text: UnsafeRawBufferPointer) {
        guard let number = ReadingPaths.numberByLexer(text) else { return }
        switch (ReadingPaths.integerByLexer(text), number) {
        case (let fast?, .success(let full)):
            fuzzCheck(full.value == .integer(fast.value) && full.end == fast.end, "the fast integer read \(fast), the number \(full)")
        case (let fast?, .failure(let error)):
            fuzzCheck(false, "the fast integer read \(fast), the number reading refused it: \(error)")
        case (nil, .success(let full)):
            if case .integer(let value) = full.value { fuzzCheck(value == Int.min, "the fast integer declined \(value)") }
        case (nil, .failure):
            break
        }
    }
}
