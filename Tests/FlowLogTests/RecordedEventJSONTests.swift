import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog
@testable import FlowLogHistory

/// An import reads most lines through `RecordedEventJSON.canonical`, which matches the export's own
/// layout, and falls back to `general` for anything else. The two must never disagree: a line the
/// canonical path reads must read the same through the general one.
@Suite("Import's line decoder")
struct RecordedEventJSONTests {
    /// The NDJSON export of a log of random commands over three streams, some with command and
    /// correlation ids (so that the optional members appear), with awkward product names.
    private func exportedLines() throws -> [[UInt8]] {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        var rng = SplitMix64(seed: 2026)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        for index in 0..<700 {
            var command = generator.command(using: &rng)
            if index % 7 == 0 {
                command = .cart(.addProduct(.init(productId: "p\(index)", name: "Mug \"\(index)\"\\\n\u{E9}", unitPrice: 100 + index, quantity: 1)))
            }
            _ = try processor.handle([
                CommandEnvelope(
                    stream: ["a", "b.c", "d:e-1"][index % 3], commandId: index % 2 == 0 ? "c\(index)" : nil,
                    correlationId: index % 3 == 0 ? "k\(index)" : nil, command: command)
            ])
        }
        let output = BufferOutput()
        try EventExport(format: .ndjson).run(from: log, to: output)
        return output.bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    private func canonical(_ line: [UInt8]) -> RecordedEvent? {
        line.withUnsafeBytes { RecordedEventJSON.canonical($0) }
    }

    private func general(_ line: [UInt8]) -> RecordedEvent? {
        line.withUnsafeBytes { try? RecordedEventJSON.general($0) }
    }

    @Test func everyExportedLineIsReadByTheCanonicalPathAsTheGeneralOneReadsIt() throws {
        let lines = try exportedLines()
        #expect(lines.count > 200)
        #expect(lines.contains { String(decoding: $0, as: UTF8.self).contains("\"correlationId\"") })
        #expect(lines.contains { String(decoding: $0, as: UTF8.self).contains("\"causationId\"") })
        for line in lines {
            let fast = canonical(line)
            #expect(fast != nil, "\(String(decoding: line, as: UTF8.self))")
            #expect(fast == general(line))
        }
    }

    @Test func aMutatedLineIsEitherReadAlikeOrLeftToTheGeneralPath() throws {
        let lines = try exportedLines()
        var rng = SplitMix64(seed: 7)
        var readByBoth = 0
        var leftToGeneral = 0
        for line in lines.prefix(300) {
            for _ in 0..<40 {
                var mutated = line
                let at = Int(rng.next() % UInt64(mutated.count))
                switch rng.next() % 6 {
                case 0: mutated[at] = UInt8(truncatingIfNeeded: rng.next())
                case 1: mutated.remove(at: at)
                case 2: mutated.insert(UInt8(ascii: " "), at: at)
                case 3:
                    mutated[at] =
                        [UInt8(ascii: "0"), UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "9")][Int(rng.next() % 5)]
                case 4: mutated.insert(contentsOf: Array(#","extra":null"#.utf8), at: at)
                default: mutated.append([UInt8(ascii: "}"), UInt8(ascii: " "), UInt8(ascii: "x")][Int(rng.next() % 3)])
                }
                if let fast = canonical(mutated) {
                    readByBoth += 1
                    #expect(general(mutated) == fast, "\(String(decoding: mutated, as: UTF8.self))")
                } else {
                    leftToGeneral += 1
                }
            }
        }
        // Both outcomes occur, so the comparison above was not vacuous.
        #expect(readByBoth > 500)
        #expect(leftToGeneral > 500)
    }
}
