import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@Suite("send sessions")
struct SendSessionTests {
    private func send(
        _ input: String, to log: any EventLog = InMemoryEventLog(), chunkSize: Int = 1 << 16,
        streamsPerCommit: Int = AppendRules.streamsPerCommit
    ) throws -> (lines: [String], summary: SendSession.Summary) {
        let folder = TemporaryDirectory()
        let file = folder.child("in.ndjson")
        try input.write(toFile: file, atomically: true, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        let reader = LineReader(fileDescriptor: descriptor, chunkSize: chunkSize)
        let output = BufferOutput()
        let session = SendSession(
            processor: CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator()), output: output,
            streamsPerCommit: streamsPerCommit)
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

    /// `send` checks identifiers and fields on its reading thread: the answers are the processor's
    /// own, in their places, and nothing of a refused line is written.
    @Test func fieldChecksOnTheReadingThreadAnswerAsTheProcessorDoes() throws {
        let lines = [
            #"{"type":"cart.addProduct","stream":"s 1","productId":"p1","unitPrice":1,"quantity":1}"#,
            #"{"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":1,"quantity":0}"#,
            #"{"type":"cart.checkout","stream":"flowlog:erasures"}"#,
            #"{"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":1,"quantity":1,"id":"a b"}"#,
            #"{"type":"cart.addProduct","stream":"s1","productId":"p1","unitPrice":1,"quantity":1}"#,
        ]
        let log = InMemoryEventLog()
        let (answers, summary) = try send(lines.joined(separator: "\n"), to: log)
        let processor = CommandProcessor(log: InMemoryEventLog(), clock: SteppingClock(), ids: SequentialIDGenerator())
        for index in 0..<4 {
            let envelope = try WireCommand.decode(lines[index]).get()
            #expect(answers[index] == FlowJSON.answer(try processor.handle(envelope)), "line \(index + 1)")
        }
        #expect(answers[4] == #"{"ok":true,"stream":"s1","positions":[1],"version":1}"#)
        #expect(summary == SendSession.Summary(accepted: 1, duplicates: 0, rejected: 4))
        #expect(try log.lastPosition() == 1)
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

    /// Blank lines (and a byte order mark before the first line) are no commands and get no
    /// answer; the answers are those of the other lines, in order. (They were answered as
    /// malformed, which made a file's trailing blank line fail the whole `send`.)
    @Test(arguments: [1, 2, 3, 1 << 16])
    func blankLinesAndALeadingByteOrderMarkGetNoAnswer(chunkSize: Int) throws {
        let launch = #"{"type":"app.launched","hasOnboarded":true}"#
        let (lines, summary) = try send("\u{FEFF}\n" + launch + "\n \t\n\r\n" + launch + "\n\n", chunkSize: chunkSize)
        #expect(
            lines == [#"{"ok":true,"stream":"default","positions":[1],"version":1}"#, #"{"ok":true,"stream":"default","positions":[2],"version":2}"#])
        #expect(summary == SendSession.Summary(accepted: 2))
        let (marked, _) = try send("\u{FEFF}" + launch + "\n", chunkSize: chunkSize)
        #expect(marked == [#"{"ok":true,"stream":"default","positions":[1],"version":1}"#])
    }

    private final class StreamCountingLog: ForwardingEventLog, @unchecked Sendable {
        var streamsPerAppend: [[String]] = []
        override func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
            streamsPerAppend.append(Array(Set(requests.map(\.stream))).sorted())
            return try super.append(requests)
        }
    }

    /// In a large log each stream a commit touches holds pages in memory until the commit, so a
    /// read that names more streams than a commit may is committed in parts, cut between lines.
    @Test func aReadNamingMoreStreamsThanACommitMayIsCommittedInPartsAndAnsweredInOrder() throws {
        // Given ten commands for five streams, twice round, with a malformed line after the third
        var lines = (0..<10).map { #"{"type":"cart.addProduct","stream":"s\#($0 % 5)","productId":"p\#($0)","unitPrice":100,"quantity":1}"# }
        lines.insert("not json", at: 3)
        let log = StreamCountingLog()
        // When they are sent in one read, with commits of at most two streams
        let (answers, summary) = try send(lines.joined(separator: "\n") + "\n", to: log, streamsPerCommit: 2)
        // Then five commits of two streams each, in input order
        #expect(log.streamsPerAppend == [["s0", "s1"], ["s2", "s3"], ["s0", "s4"], ["s1", "s2"], ["s3", "s4"]])
        // And every line is answered once, in order, the malformed one where it stood
        #expect(answers.count == 11)
        #expect(answers[3].hasPrefix(#"{"ok":false,"stream":null,"error":{"code":"malformedCommand""#))
        #expect(answers[0] == #"{"ok":true,"stream":"s0","positions":[1],"version":1}"#)
        #expect(answers[10] == #"{"ok":true,"stream":"s4","positions":[10],"version":2}"#)
        #expect(summary == SendSession.Summary(accepted: 10, rejected: 1))
        #expect(try log.lastPosition() == 10)
    }
}
