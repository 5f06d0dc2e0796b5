import FlowLog

/// The JSON value parser (`JSONParser`), under every JSON FlowLog reads: command lines, `meta`,
/// exported `data`, the server's request bodies. The input is one JSON text.
///
/// Neither the parser nor the export reader's scanner traps; a value the parser reads, the scanner
/// reads the same; and a value written back (`JSONWriter.value`, how input is echoed) is JSON that
/// parses to the same value.
enum JSONValueTarget {
    static let target = FuzzTarget(
        name: "json-value",
        checks: "a JSON text: the parser and the scanner read the same value; a value written back parses to the same value",
        run: run
    )

    @Sendable static func run(_ text: UnsafeRawBufferPointer) {
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
}
