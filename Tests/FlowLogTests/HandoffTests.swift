import Deciding
import FlowDomain
import FlowLogBasics
import Foundation
import Testing

@testable import FlowLog

/// The queue between the threads that submit commands and the log's writer (`GroupCommitWriter`),
/// and between an import's or an export's stages: a commit takes every submission that waits, in
/// order, so a backlog goes to disk in fewer commits.
@Suite("Handoff between threads")
struct HandoffTests {
    @Test func givenBatchesWaitingWhenTheConsumerTakesAllThenItGetsEveryOneInOrder() throws {
        let handoff = Handoff<Int>(capacity: 4)
        for item in 1...3 { #expect(handoff.put(item)) }
        #expect(try handoff.takeAll(upToWeight: 10) == [1, 2, 3])
        #expect(handoff.put(4))
        handoff.close(error: nil)
        #expect(try handoff.takeAll(upToWeight: 10) == [4])
        #expect(try handoff.takeAll(upToWeight: 10) == [], "after the producer closed and all was taken")
    }

    @Test func givenWeighedItemsWhenTheConsumerTakesUpToAWeightThenTheRestWaitForTheNextTake() throws {
        let handoff = Handoff<Int>(capacity: 100, weight: { $0 })
        for item in [5, 4, 3, 50] { #expect(handoff.put(item)) }
        #expect(try handoff.takeAll(upToWeight: 12) == [5, 4, 3])
        #expect(try handoff.takeAll(upToWeight: 12) == [50], "one item heavier than the limit still goes, alone")
        #expect(handoff.put(100), "an emptied queue takes an item as heavy as its capacity")
        #expect(try handoff.takeAll(upToWeight: 12) == [100])
    }

    @Test func givenAnAdmissionRuleWhenTheConsumerTakesAllThenItStopsAtTheFirstItemRefusedButNeverAtTheFirst() throws {
        let handoff = Handoff<Int>(capacity: 100)
        for item in [7, 1, 2, 9, 3] { #expect(handoff.put(item)) }
        #expect(try handoff.takeAll(upToWeight: 10) { $0 < 5 } == [7, 1, 2], "the first goes whatever the rule says")
        #expect(try handoff.takeAll(upToWeight: 10) { $0 < 5 } == [9, 3])
    }

    @Test func givenAClosedHandoffWhenAProducerPutsThenNothingIsQueued() throws {
        let handoff = Handoff<Int>(capacity: 4)
        #expect(handoff.put(1))
        handoff.close(error: nil)
        #expect(!handoff.put(2))
        #expect(try handoff.takeAll(upToWeight: 10) == [1])
        #expect(try handoff.takeAll(upToWeight: 10) == [])
    }

    @Test func givenAProducerThatFailedWhenTheConsumerTakesAllThenItGetsTheItemsBeforeTheError() throws {
        struct Broken: Error {}
        let handoff = Handoff<Int>(capacity: 4)
        #expect(handoff.put(1))
        handoff.close(error: Broken())
        #expect(try handoff.takeAll(upToWeight: 10) == [1])
        #expect(throws: Broken.self) { try handoff.takeAll(upToWeight: 10) }
    }

    @Test func givenAFullHandoffWhenTheConsumerTakesAllThenTheWaitingProducerGoesOn() throws {
        let handoff = Handoff<Int>(capacity: 2)
        #expect(handoff.put(1) && handoff.put(2))
        let putThird = DispatchSemaphore(value: 0)
        Thread {
            _ = handoff.put(3)
            putThird.signal()
        }.start()
        #expect(putThird.wait(timeout: .now() + 0.2) == .timedOut, "the third waits for room")
        #expect(try handoff.takeAll(upToWeight: 10) == [1, 2])
        #expect(putThird.wait(timeout: .now() + 10) == .success)
        #expect(try handoff.takeAll(upToWeight: 10) == [3])
    }

    @Test func aParsedBatchIsCutBetweenLinesByStreamsKeepingItsRejectedLinesInPlace() throws {
        var batch = SendSession.ParsedBatch()
        batch.envelopes = ["a", "b", "c"].map { CommandEnvelope(stream: $0, command: .cart(.checkout)) }
        batch.lineRejections = [nil, WireRejection(stream: nil, rejection: Rejection(.malformedCommand, "not json")), nil, nil]
        let parts = batch.parts(streamsAtMost: 2)
        #expect(parts.map { $0.envelopes.map(\.stream) } == [["a", "b"], ["c"]])
        #expect(parts.map { $0.lineRejections.map { $0 == nil } } == [[true, false, true], [true]])
    }
}
