import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog

/// One input gives one answer, byte for byte, on every backend and however it is cut into batches:
/// a reused command id is answered with the position it was accepted at even when the command that
/// took it is in the same batch (whose positions were not known when it was decided).
@Suite("The same answers on every backend, in every chunking", .serialized)
struct SameAnswerEveryBackendTests {
    /// Commands whose ids repeat, some for the same command (duplicates), some for another
    /// (idempotency conflicts), within and across any batch boundary.
    static let input: [CommandEnvelope] = (0..<600).map { index in
        let stream = "s\(index % 5)"
        let product = "p\((index / 3) % 11)"
        let command: AppCommand =
            index % 17 == 0
            ? .cart(.checkout)
            : .cart(.addProduct(.init(productId: product, name: nil, unitPrice: 100 + index % 11, quantity: 1)))
        return CommandEnvelope(stream: stream, commandId: index % 4 == 0 ? nil : "c\(index % 45)", command: command)
    }

    static func answers(_ kind: LogKind, chunk: Int) throws -> [String] {
        let fixture = try LogFixture(kind)
        let processor = CommandProcessor(log: fixture.log, clock: SteppingClock(), ids: SequentialIDGenerator())
        var answers: [String] = []
        var start = 0
        while start < input.count {
            let batch = Array(input[start..<min(start + chunk, input.count)])
            let (outcomes, commit) = try processor.handleDeferringCommit(batch)
            try commit.wait()
            answers += outcomes.map(FlowJSON.answer)
            start += chunk
        }
        return answers
    }

    @Test func everyBackendAndEveryChunkingAnswersAlike() throws {
        let reference = try Self.answers(.memory, chunk: Self.input.count)
        #expect(reference.contains { $0.contains("idempotencyConflict") && $0.contains("accepted at position") })
        #expect(!reference.contains { $0.contains("earlier in this input") })
        #expect(reference.contains { $0.contains(#""duplicate":true"#) })
        for kind in LogKind.allCases {
            for chunk in [1, 7, 64, Self.input.count] {
                let answers = try Self.answers(kind, chunk: chunk)
                #expect(
                    answers == reference,
                    "\(kind) in chunks of \(chunk): first difference at line \(answers.indices.first { $0 >= reference.count || answers[$0] != reference[$0] } ?? -1)"
                )
            }
        }
    }
}
