import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog
@testable import FlowLogHistory

/// A log with awkward strings in every text field and several streams.
private func awkwardLog(in folder: TemporaryDirectory) throws -> LMDBEventLog {
    let log = try LMDBEventLog(path: folder.child("source"))
    let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
    let names = ["Mug, \"large\"", "line\nbreak", "caf\u{E9} \u{65E5}\u{672C} \u{1F600}", " padded ", "", "back\\slash\r\n"]
    var envelopes: [CommandEnvelope] = []
    for (index, name) in names.enumerated() {
        let stream = "s\(index % 3)"
        envelopes.append(
            CommandEnvelope(
                stream: stream, commandId: "c\(index)", correlationId: "k:\(index)",
                command: .cart(.addProduct(.init(productId: "p\(index)", name: name, unitPrice: 100 * (index + 1), quantity: index + 1)))))
    }
    envelopes += [
        CommandEnvelope(stream: "s0", command: .cart(.applyDiscount(.init(discountId: "D", percent: 10, productId: nil)))),
        CommandEnvelope(stream: "s0", command: .cart(.checkout)),
        CommandEnvelope(stream: "s0", command: .payment(.failed(.init(reason: "card \"declined\", try again\n")))),
        CommandEnvelope(stream: "s0", command: .cart(.checkout)),
        CommandEnvelope(stream: "s0", command: .payment(.succeeded(.init(orderId: "o-1")))),
        CommandEnvelope(stream: "s1", command: .app(.launched(.init(hasOnboarded: true)))),
        CommandEnvelope(stream: "s1", command: .home(.selectTab(.init(tab: 1)))),
    ]
    let outcomes = try processor.handle(envelopes)
    #expect(outcomes.allSatisfy { if case .accepted = $0 { true } else { false } })
    return log
}

private func export(_ log: any EventLog, _ format: EventExport.Format, _ filter: ExportFilter = ExportFilter()) throws -> String {
    let output = BufferOutput()
    try EventExport(format: format, filter: filter).run(from: log, to: output)
    return output.text
}

/// Imports through `flowlog import`'s pipeline (decoding, preparing and writing on three threads),
/// or, with `pipelined` false, through `ImportSink` on the calling thread.
private func importNDJSON(_ text: String, into log: LMDBEventLog, pipelined: Bool = false) throws -> Int {
    if pipelined {
        let folder = TemporaryDirectory()
        let path = folder.child("import.ndjson")
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        return try log.importNDJSON(from: LineReader(fileDescriptor: descriptor), expectedBytes: text.utf8.count, progress: nil)
    }
    return try log.importEvents { sink in
        for (index, line) in text.split(separator: "\n").enumerated() {
            var bytes = Array(line.utf8)
            let record = try bytes.withUnsafeMutableBytes { try RecordedEventJSON.decode(UnsafeRawBufferPointer($0)) }
            try sink.add(record, line: index + 1)
        }
    }
}

@Suite("Export and import")
struct ExportImportTests {
    @Test func anExportImportedIntoAnEmptyLogExportsByteForByteTheSame() throws {
        let folder = TemporaryDirectory()
        let source = try awkwardLog(in: folder)
        let first = try export(source, .ndjson)
        let copy = try LMDBEventLog(path: folder.child("copy"))
        #expect(try importNDJSON(first, into: copy) == 13)
        #expect(try export(copy, .ndjson) == first)
        #expect(try export(copy, .csv) == export(source, .csv))
        for stream in ["s0", "s1", "s2"] {
            #expect(try copy.state(ofStream: stream) == source.state(ofStream: stream))
        }
        #expect(try copy.events() == source.events())
    }

    @Test func csvQuotesByRFC4180AndHasOneTypedCellPerColumn() throws {
        let folder = TemporaryDirectory()
        let csv = try export(try awkwardLog(in: folder), .csv)
        #expect(csv.hasPrefix(CSVSchema.columns.map(\.name).joined(separator: ",") + "\n"))
        #expect(csv.contains(#",p0,"Mug, ""large""",100,1,"#))
        #expect(csv.contains(",p1,\"line\nbreak\",200,2,"))
        #expect(csv.contains(",p3,\" padded \",400,4,"))
        #expect(csv.contains(",p4,\"\",500,5,"))
        #expect(csv.contains(",p2,caf\u{E9} \u{65E5}\u{672C} \u{1F600},300,3,"))
        #expect(csv.contains(#",,,,,,,,,,true,"#))
    }

    @Test func filtersSelectByStreamTypePositionAndTime() throws {
        let folder = TemporaryDirectory()
        let log = try awkwardLog(in: folder)
        func positions(_ configure: (inout ExportFilter) -> Void) throws -> [Int] {
            var filter = ExportFilter()
            configure(&filter)
            return try export(log, .ndjson, filter).split(separator: "\n").map { line in
                guard case .integer(let position)? = try JSONParser.parse(String(line))["position"] else { return -1 }
                return position
            }
        }
        #expect(try positions { $0.streams = ["s1"] } == [2, 5, 12, 13])
        #expect(try positions { $0.streams = ["s1", "s2"] } == [2, 3, 5, 6, 12, 13])
        #expect(try positions { $0.types = ["cart.checkoutStarted"] } == [8, 10])
        #expect(
            try positions {
                $0.fromPosition = 11
                $0.toPosition = 12
            } == [11, 12])
        #expect(
            try positions {
                $0.streams = ["s1"]
                $0.fromPosition = 3
                $0.toPosition = 12
            } == [5, 12])
        // SteppingClock: one second per command, starting at 2027-01-01T00:00:00Z.
        #expect(
            try positions {
                $0.since = Timestamp(rfc3339: "2027-01-01T00:00:03Z")
                $0.until = Timestamp(rfc3339: "2027-01-01T00:00:05Z")
            } == [4, 5])
    }

    @Test(arguments: [false, true])
    func importRefusesBrokenContiguityDuplicateIdsAndBadLinesCommittingNothing(pipelined: Bool) throws {
        let folder = TemporaryDirectory()
        let lines = try export(try awkwardLog(in: folder), .ndjson).split(separator: "\n").map(String.init)
        let target = try LMDBEventLog(path: folder.child("target"))
        func importNDJSON(_ text: String, into log: LMDBEventLog) throws -> Int {
            try FlowLogTests.importNDJSON(text, into: log, pipelined: pipelined)
        }
        func refusal(_ text: String) -> ImportError? {
            do {
                _ = try importNDJSON(text, into: target)
                return nil
            } catch {
                if case .refusedImport(let refusal)? = error as? FlowLogError { return refusal }
                return nil
            }
        }
        #expect(refusal(([lines[0], lines[2]]).joined(separator: "\n"))?.line == 2)  // position gap
        #expect(refusal(lines[1])?.problem.contains("next position is 1") == true)  // does not start at 1
        let versionGap = lines[3].replacingOccurrences(of: #""version":2"#, with: #""version":3"#)
        #expect(refusal(([lines[0], lines[1], lines[2], versionGap]).joined(separator: "\n"))?.line == 4)
        let sameId = lines[1].replacingOccurrences(of: "00000000-0000-0000-0000-000000000002", with: "00000000-0000-0000-0000-000000000001")
        #expect(refusal([lines[0], sameId].joined(separator: "\n"))?.problem.contains("already in the log") == true)
        // Puts wait in sorted batches, yet the first bad line is the one named.
        let firstOfTwo = refusal([lines[0], sameId, lines[2], versionGap].joined(separator: "\n"))
        #expect(firstOfTwo?.line == 2)
        #expect(firstOfTwo?.problem.contains("00000000-0000-0000-0000-000000000001 is already in the log, at position 1") == true)
        #expect(try target.lastPosition() == 0, "a refused import commits nothing")
        #expect(try importNDJSON(lines[0...4].joined(separator: "\n"), into: target) == 5)
        #expect(refusal(lines[0])?.problem.contains("next position is 6") == true)
        if pipelined {
            #expect(refusal(lines[5] + "\n{\"position\":7")?.line == 2, "a line that is not JSON, after a good one")
        }
        #expect(try importNDJSON(lines[5...].joined(separator: "\n"), into: target) == 8)
        // The second import continued streams the first began: their states and fingerprints hold.
        #expect(try export(target, .ndjson) == lines.joined(separator: "\n") + "\n")
        let report = try ReplayVerifier.verifyFingerprints(of: target)
        #expect(report.comparisons == 13)
        #expect(report.disagreements.isEmpty)
        for stream in ["s0", "s1", "s2"] {
            let source = try LMDBEventLog(path: folder.child("source"), access: .readOnly)
            #expect(try target.state(ofStream: stream, throughPosition: nil) == (try source.state(ofStream: stream, throughPosition: nil)))
        }
    }

    @Test(arguments: [
        "{}", "[]", #"{"position":1}"#,
        #"{"position":1,"stream":"s","version":1,"eventId":"x","type":"modal.dismissed","actor":"user","timestamp":"2027-01-01T00:00:00Z","data":{}}"#,
        #"{"position":1,"stream":"s","version":1,"eventId":"00000000-0000-0000-0000-000000000001","type":"nope","actor":"user","timestamp":"2027-01-01T00:00:00Z","data":{}}"#,
        #"{"position":1,"stream":"s","version":1,"eventId":"00000000-0000-0000-0000-000000000001","type":"modal.dismissed","actor":"robot","timestamp":"2027-01-01T00:00:00Z","data":{}}"#,
        #"{"position":1,"stream":"s","version":1,"eventId":"00000000-0000-0000-0000-000000000001","type":"modal.dismissed","actor":"user","timestamp":"soon","data":{}}"#,
        #"{"position":1,"stream":"bad id","version":1,"eventId":"00000000-0000-0000-0000-000000000001","type":"modal.dismissed","actor":"user","timestamp":"2027-01-01T00:00:00Z","data":{}}"#,
        #"{"position":1,"stream":"s","version":1,"eventId":"00000000-0000-0000-0000-000000000001","type":"cart.productRemoved","actor":"user","timestamp":"2027-01-01T00:00:00Z","data":{"productId":"p"}}"#,
        #"{"position":1,"stream":"s","version":1,"eventId":"00000000-0000-0000-0000-000000000001","type":"modal.dismissed","actor":"user","timestamp":"2027-01-01T00:00:00Z","schemaVersion":7,"data":{}}"#,
    ])
    func badLinesAreRefusedWithAReason(line: String) {
        #expect(throws: RecordedEventJSON.Problem.self) {
            var bytes = Array(line.utf8)
            _ = try bytes.withUnsafeMutableBytes { try RecordedEventJSON.decode(UnsafeRawBufferPointer($0)) }
        }
    }

    @Test func theSchemaListsEveryColumnWithAType() {
        // 26 columns, and the erasure audit trail's 3 (log.streamForgotten, exported with --system).
        #expect(CSVSchema.columns.count == 29)
        #expect(CSVSchema.description.split(separator: "\n").count == 29)
        #expect(CSVSchema.description.contains("unit_price      BIGINT"))
    }
}
