import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog

private func add(_ product: String, price: Int = 1250, quantity: Int = 1, stream: String = "s1", id: String? = nil, expected: Int? = nil)
    -> CommandEnvelope
{
    CommandEnvelope(
        stream: stream, commandId: id, expectedVersion: expected,
        command: .cart(.addProduct(.init(productId: product, name: nil, unitPrice: price, quantity: quantity))))
}

private func code(_ outcome: CommandOutcome) -> RejectionCode? {
    if case .rejected(_, let rejection) = outcome { return rejection.code }
    return nil
}

private func acceptance(_ outcome: CommandOutcome) -> Acceptance? {
    if case .accepted(let acceptance) = outcome { return acceptance }
    return nil
}

@Suite("Command pipeline")
struct CommandProcessorTests {
    private func processor(_ log: any EventLog = InMemoryEventLog(), idsAfter: UInt64 = 0) -> CommandProcessor {
        CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: idsAfter))
    }

    @Test func anAcceptedCommandIsRecordedWithItsEnvelope() throws {
        let log = InMemoryEventLog()
        let command = AppCommand.app(.launched(.init(hasOnboarded: false)))
        let outcome = try processor(log).handle(CommandEnvelope(stream: "s1", commandId: "c1", correlationId: "k1", command: command))
        #expect(
            acceptance(outcome)?.receipt
                == CommandReceipt(firstPosition: 1, eventCount: 1, version: 1, commandFingerprint: CommandFingerprint.of(command)))
        let event = try log.events()[0]
        #expect(event.actor == .system)
        #expect(event.causationId == "c1")
        #expect(event.correlationId == "k1")
        #expect(event.eventId == EventID(high: 0, low: 1))
        #expect(event.timestamp == Timestamp(microseconds: 1_798_761_600_000_000))
    }

    @Test func aRejectedCommandAppendsNothing() throws {
        let log = InMemoryEventLog()
        let outcome = try processor(log).handle(CommandEnvelope(command: .cart(.checkout)))
        #expect(code(outcome) == .emptyCart)
        #expect(try log.lastPosition() == 0)
    }

    @Test func aRetriedCommandIsADuplicateEvenWithAStaleExpectedVersion() throws {
        let pipeline = processor()
        let first = try pipeline.handle(add("p1", id: "c1", expected: 0))
        _ = try pipeline.handle(add("p2"))
        let retry = try pipeline.handle(add("p1", id: "c1", expected: 0))
        #expect(acceptance(retry) == Acceptance(stream: "s1", receipt: acceptance(first)!.receipt, duplicate: true, events: []))
        #expect(try pipeline.state(of: "s1").state.cart.lines[0].quantity == 1)
    }

    @Test(arguments: [false, true])
    func anIdUsedAgainForAnotherCommandIsAnIdempotencyConflict(lmdb: Bool) throws {
        let folder = TemporaryDirectory()
        let log: any EventLog = lmdb ? try LMDBEventLog(path: folder.child("log.lmdb")) : InMemoryEventLog()
        _ = try processor(log).handle(add("p1", id: "c1"))
        // A fresh pipeline: the answer comes from the receipt the log kept, not from a cache.
        let pipeline = processor(log, idsAfter: 100)
        #expect(code(try pipeline.handle(add("p1", quantity: 2, id: "c1"))) == .idempotencyConflict)
        #expect(code(try pipeline.handle(CommandEnvelope(stream: "s1", commandId: "c1", command: .cart(.checkout)))) == .idempotencyConflict)
        #expect(
            acceptance(try pipeline.handle(add("p1", id: "c1", expected: 7)))?.duplicate == true, "the same command is a retry, whatever its envelope"
        )
        #expect(acceptance(try pipeline.handle(add("p1", quantity: 2, stream: "s2", id: "c1"))) != nil, "command ids are per stream")
        #expect(try log.lastPosition() == 2)
        if case .rejected(_, let rejection) = try pipeline.handle(add("p1", quantity: 3, id: "c1")) {
            #expect(
                rejection.message.hasPrefix("Command id c1 was used in stream s1 for another command (accepted at position 1); nothing was appended.")
            )
        }
    }

    @Test func aReceiptWithoutAFingerprintKeepsTheDuplicateAnswer() throws {
        // As written before receipts kept fingerprints: nothing to compare, so a retry is a duplicate.
        let log = InMemoryEventLog()
        _ = try log.append([
            AppendRequest(
                stream: "s1", expectedVersion: nil, commandId: "c1",
                events: [
                    NewEvent(
                        eventId: EventID(high: 9, low: 9), timestamp: Timestamp(microseconds: 1), actor: .user, event: .navigation(.modalPresented))
                ])
        ])
        let outcome = try processor(log).handle(add("p9", quantity: 4, id: "c1"))
        #expect(acceptance(outcome)?.duplicate == true)
        #expect(acceptance(outcome)?.receipt == CommandReceipt(firstPosition: 1, eventCount: 1, version: 1))
    }

    @Test func fieldChecksComeBeforeTheDuplicateCheck() throws {
        let pipeline = processor()
        _ = try pipeline.handle(add("p1", id: "c1"))
        #expect(code(try pipeline.handle(add("p1", price: -1, id: "c1"))) == .invalidPrice)
        #expect(code(try pipeline.handle(add("p1", id: "bad id"))) == .invalidIdentifier)
        #expect(code(try pipeline.handle(add("p1", stream: "bad stream"))) == .invalidIdentifier)
    }

    @Test func theVersionCheckComesBeforeTheStateChecks() throws {
        let pipeline = processor()
        #expect(code(try pipeline.handle(CommandEnvelope(stream: "s1", expectedVersion: 3, command: .cart(.checkout)))) == .versionConflict)
        #expect(code(try pipeline.handle(CommandEnvelope(stream: "s1", expectedVersion: 0, command: .cart(.checkout)))) == .emptyCart)
        #expect(acceptance(try pipeline.handle(add("p1", expected: 0))) != nil)
        #expect(code(try pipeline.handle(add("p1", expected: 0))) == .versionConflict)
    }

    @Test func aBatchIsDecidedInOrderAgainstItsOwnEarlierEvents() throws {
        let log = InMemoryEventLog()
        let outcomes = try processor(log).handle([
            add("p1", quantity: 998, id: "c1"),
            add("p1", quantity: 1, id: "c2"),
            add("p1", quantity: 1, id: "c3"),  // would make 1000
            add("p1", quantity: 998, id: "c1"),  // a twin of the first: a duplicate
            add("p1", quantity: 5, id: "c1"),  // the first's id for another command: a conflict
            CommandEnvelope(stream: "s1", expectedVersion: 2, command: .cart(.checkout)),
        ])
        #expect(outcomes.map(code) == [nil, nil, .quantityLimit, nil, .idempotencyConflict, nil])
        #expect(acceptance(outcomes[3])?.duplicate == true)
        #expect(acceptance(outcomes[3])?.receipt == acceptance(outcomes[0])?.receipt)
        #expect(acceptance(outcomes[5])?.receipt.version == 3)
        #expect(try log.lastPosition() == 3)
    }

    @Test func anotherWriterIsNoticedAndTheCommandDecidedAgain() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log.lmdb")
        let mine = processor(try LMDBEventLog(path: path))
        let theirs = processor(try LMDBEventLog(path: path), idsAfter: 1_000)
        _ = try mine.handle(add("p1", quantity: 990))
        _ = try theirs.handle(add("p1", quantity: 9))  // mine still believes the line holds 990
        #expect(code(try mine.handle(add("p1", quantity: 5))) == .quantityLimit)
        #expect(code(try mine.handle(add("p1", quantity: 5, expected: 1))) == .versionConflict)
        #expect(try mine.state(of: "s1").state.cart.lines[0].quantity == 999)
    }
}
