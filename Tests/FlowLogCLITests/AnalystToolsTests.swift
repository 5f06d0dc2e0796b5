import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

/// Exports loaded into DuckDB and pandas (installed by `scripts/test`) give FlowLog's own figures.
@Suite("Exports in analysts' tools")
struct AnalystToolsTests {
    private static let awkwardNames = [
        "Mug, \"large\"", "two\nlines", "caf\u{E9} \u{65E5}\u{672C} \u{1F600}", " padded ", "semi;colon", "tab\there", "NULL",
    ]

    /// Many streams with orders, failed payments and awkward product names, sent through the CLI.
    private func commands(seed: UInt64) -> String {
        var rng = SplitMix64(seed: seed)
        var lines: [String] = []
        for session in 0..<40 {
            let stream = "session-\(session)"
            lines.append(WireCommand.encode(CommandEnvelope(stream: stream, command: .app(.launched(.init(hasOnboarded: session % 3 == 0))))))
            for order in 0..<Int.random(in: 1...3, using: &rng) {
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let product = Int.random(in: 0..<Self.awkwardNames.count, using: &rng)
                    lines.append(
                        WireCommand.encode(
                            CommandEnvelope(
                                stream: stream,
                                command: .cart(
                                    .addProduct(
                                        .init(
                                            productId: "p\(product)", name: Self.awkwardNames[product], unitPrice: 199 * (product + 1),
                                            quantity: Int.random(in: 1...5, using: &rng)))))))
                }
                if Bool.random(using: &rng) {
                    lines.append(
                        WireCommand.encode(
                            CommandEnvelope(
                                stream: stream, command: .cart(.applyDiscount(.init(discountId: "D\(order)", percent: 15, productId: nil))))))
                }
                lines.append(WireCommand.encode(CommandEnvelope(stream: stream, command: .cart(.checkout))))
                if Int.random(in: 0..<3, using: &rng) == 0 {
                    lines.append(
                        WireCommand.encode(
                            CommandEnvelope(stream: stream, command: .payment(.failed(.init(reason: "declined, \"insufficient\" funds"))))))
                    lines.append(WireCommand.encode(CommandEnvelope(stream: stream, command: .cart(.checkout))))
                }
                lines.append(WireCommand.encode(CommandEnvelope(stream: stream, command: .payment(.succeeded(.init(orderId: "o-\(order)"))))))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func duckDBAndPandasReadTheExportsAndAgreeWithFlowLog() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let sent = try FlowLogProcess.run(["send"] + db, stdin: commands(seed: 5))
        #expect(sent.status == 0, "\(sent.stderr)")
        for (format, file) in [("ndjson", "events.ndjson"), ("csv", "events.csv")] {
            let exported = try FlowLogProcess.run(["export", "--format", format, "--output", folder.child(file)] + db)
            #expect(exported.status == 0, "\(exported.stderr)")
        }

        // FlowLog's own figures, from the log.
        let log = try LMDBEventLog(path: folder.child("log"), access: .readOnly)
        var orders: [String: [Int]] = [:]
        var types: [String: Int] = [:]
        var names: [String] = []
        for event in try log.events() {
            types[event.event.typeName, default: 0] += 1
            if case .cart(.productAdded(let added)) = event.event { names.append(added.name) }
        }
        for (stream, _) in try log.streams() {
            let placed = try log.state(ofStream: stream).state.orders.orders
            if !placed.isEmpty { orders[stream] = [placed.count, placed.reduce(0) { $0 + $1.total }] }
        }
        let eventCount = try log.lastPosition()

        let script = FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("Tests/analyst/aggregate_exports.py").path
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", script, folder.child("events.ndjson"), folder.child("events.csv")]
        let output = folder.child("figures.json")
        #expect(FileManager.default.createFile(atPath: output, contents: nil))
        python.standardOutput = FileHandle(forWritingAtPath: output)
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0, "the analyst script failed; scripts/test installs duckdb and pandas")
        let figures = try JSONParser.parse(String(contentsOfFile: output, encoding: .utf8))
        for tool in ["duckdb_ndjson", "duckdb_csv", "pandas_ndjson", "pandas_csv"] {
            guard let result = figures[tool] else {
                Issue.record("no figures from \(tool)")
                continue
            }
            #expect(result["events"] == .integer(eventCount), "\(tool)")
            #expect(result["distinctPositions"] == .integer(eventCount), "\(tool)")
            #expect(
                result["orders"] == .object(orders.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.map(JSONValue.integer))) }), "\(tool)")
            #expect(result["types"] == .object(types.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) }), "\(tool)")
            #expect(result["names"] == .array(names.map(JSONValue.string)), "\(tool)")
        }
        #expect(orders.count == 40)
    }

    @Test func aCLIRoundTripIsByteIdentical() throws {
        let folder = TemporaryDirectory()
        _ = try FlowLogProcess.run(["send", "--db", folder.child("a")], stdin: commands(seed: 9))
        _ = try FlowLogProcess.run(["export", "--db", folder.child("a"), "-o", folder.child("1.ndjson")])
        let imported = try FlowLogProcess.run(["import", folder.child("1.ndjson"), "--db", folder.child("b")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("imported "))
        _ = try FlowLogProcess.run(["export", "--db", folder.child("b"), "-o", folder.child("2.ndjson")])
        let first = try Data(contentsOf: URL(fileURLWithPath: folder.child("1.ndjson")))
        #expect(first.count > 10_000)
        #expect(first == (try Data(contentsOf: URL(fileURLWithPath: folder.child("2.ndjson")))))
        let again = try FlowLogProcess.run(["import", folder.child("1.ndjson"), "--db", folder.child("b")])
        #expect(again.status == 65)
        #expect(again.stderr.contains("Line 1 of the import"))
        let intoNew = try FlowLogProcess.run(["import", "-", "--db", folder.child("c")], stdin: "{\"position\":1}\n")
        #expect(intoNew.status == 65)
        #expect(!FileManager.default.fileExists(atPath: folder.child("c")), "a refused import into a new log leaves nothing behind")
    }
}
