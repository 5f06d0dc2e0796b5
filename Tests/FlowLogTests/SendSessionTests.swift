import FlowDomain
import FlowLog
import FlowLogTesting
import Foundation
import Testing

@Suite("send sessions")
struct SendSessionTests {
    private func send(_ input: String, to log: any EventLog = InMemoryEventLog(), chunkSize: Int = 1 << 16) throws -> (lines: [String], summary: SendSession.Summary) {
        let folder = TemporaryDirectory()
        let file = folder.child("in.ndjson")
        try input.write(toFile: file, atomically: true, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        let reader = LineReader(fileDescriptor: descriptor, chunkSize: chunkSize)
        let output = BufferOutput()
        let session = SendSession(processor: CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator()), output: output)
        let summary = try session.run(reader: reader)
        return (output.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init), summary)
    }

    @Test func answersEveryLineInOrderAndGoesOnAfterARejection() throws {
        let input = """
        {"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":1250,"quantity":2,"id":"a"}
        {"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":999,"quantity":1}
        not json
        {"type":"cart.checkout","stream":"s1"}
        {"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":1250,"quantity":2,"id":"a"}
        """
        let (lines, summary) = try send(input)
        #expect(lines.count == 5)
        #expect(lines[0] == #"{"ok":true,"stream":"s1","positions":[1],"version":1}"#)
        #expect(lines[1].hasPrefix(#"{"ok":false,"stream":"s1","error":{"code":"priceMismatch","message":""#))
        #expect(lines[2].hasPrefix(#"{"ok":false,"stream":null,"error":{"code":"malformedCommand""#))
        #expect(lines[3] == #"{"ok":true,"stream":"s1","positions":[2],"version":2}"#)
        #expect(lines[4] == #"{"ok":true,"stream":"s1","positions":[1],"version":1,"duplicate":true}"#)
        #expect(summary == SendSession.Summary(accepted: 2, duplicates: 1, rejected: 2))
    }

    @Test func tinyReadsSplitLinesAnywhereAndStillAnswerEachOnce() throws {
        let line = #"{"type":"cart.addProduct","productId":"p1","unitPrice":1,"quantity":1}"#
        let input = Array(repeating: line, count: 50).joined(separator: "\r\n") + "\n"
        let (lines, summary) = try send(input, chunkSize: 7)
        #expect(lines.count == 50)
        #expect(summary.accepted == 50)
        #expect(lines.last == #"{"ok":true,"stream":"default","positions":[50],"version":50}"#)
    }

    @Test func anOverlongLineIsAnsweredAsMalformedAndSkipped() throws {
        let huge = "{\"type\":\"cart.checkout\",\"pad\":\"" + String(repeating: "x", count: LineReader.maximumLineLength + 10) + "\"}"
        let input = huge + "\n" + #"{"type":"app.launched","hasOnboarded":true}"# + "\n"
        let (lines, _) = try send(input)
        #expect(lines.count == 2)
        #expect(lines[0].contains("malformedCommand"))
        #expect(lines[0].contains("over the limit"))
        #expect(lines[1].hasPrefix(#"{"ok":true"#))
    }

    @Test func aBlankLineIsAnsweredSoAnswersStayAlignedWithLines() throws {
        let (lines, _) = try send("\n" + #"{"type":"app.launched","hasOnboarded":true}"#)
        #expect(lines.count == 2)
        #expect(lines[0].contains("malformedCommand"))
    }
}
