import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog

/// The processor caches states that do not fit its budget whole without their older orders
/// (`StateCache`); the duplicate-order check, the one decision that reads them, must still see
/// every order the stream placed. A budget of one byte makes every cached state a slim one.
@Suite("Lean cached states")
struct LeanStateCacheTests {
    private static func order(_ id: String, stream: String = "s1") -> [CommandEnvelope] {
        [
            CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: "p-\(id)", name: nil, unitPrice: 500, quantity: 1)))),
            CommandEnvelope(stream: stream, command: .cart(.checkout)),
            CommandEnvelope(stream: stream, command: .payment(.succeeded(.init(orderId: id)))),
        ]
    }

    private static func code(_ outcome: CommandOutcome) -> RejectionCode? {
        if case .rejected(_, let rejection) = outcome { return rejection.code }
        return nil
    }

    private static func log(lmdb: Bool, in folder: TemporaryDirectory) throws -> any EventLog {
        lmdb ? try LMDBEventLog(path: folder.path + "/log") : InMemoryEventLog()
    }

    @Test(arguments: [false, true])
    func anOrderIdBeforeTheLatestIsRefusedAfterTheStreamWasCached(lmdb: Bool) throws {
        let folder = TemporaryDirectory()
        let processor = CommandProcessor(
            log: try Self.log(lmdb: lmdb, in: folder), clock: SteppingClock(), ids: SequentialIDGenerator(), cacheBudget: 1)
        for id in ["o1", "o2", "o3"] { _ = try processor.handle(Self.order(id)) }
        let cached = try #require(processor.cache["s1"])
        // LMDB keeps orders apart from its heads; memory's snapshots hold whole states.
        #expect(cached.state.orders.orders.map(\.orderId) == (lmdb ? ["o3"] : ["o1", "o2", "o3"]))
        #expect(cached.state.orders.count == 3)

        let again = try processor.handle(Self.order("o1"))
        #expect(Self.code(again[2]) == .duplicateOrder)
        #expect(try processor.state(of: "s1").state.orders.orders.map(\.orderId) == ["o1", "o2", "o3"])
    }

    @Test(arguments: [false, true])
    func aBatchThatPlacesAndRepeatsOrdersSeesThemAll(lmdb: Bool) throws {
        let folder = TemporaryDirectory()
        let processor = CommandProcessor(
            log: try Self.log(lmdb: lmdb, in: folder), clock: SteppingClock(), ids: SequentialIDGenerator(), cacheBudget: 1)
        _ = try processor.handle(Self.order("o1") + Self.order("o2"))
        // o1 is older than the cached state's latest order; the batch's own o3 is newer.
        let outcomes = try processor.handle(Self.order("o3") + Self.order("o1") + Self.order("o3"))
        #expect(Self.code(outcomes[2]) == nil)
        #expect(Self.code(outcomes[5]) == .duplicateOrder)
        #expect(Self.code(outcomes[8]) == .duplicateOrder)
        // A stream no command of the round needs whole stays lean in LMDB's cache.
        #expect(processor.cache["s1"]?.state.orders.orders.count == (lmdb ? 1 : 3))
        #expect(try processor.state(of: "s1").state.orders.count == 3)
    }

    @Test func onlyAnIdTheDroppedOrdersMayHoldDropsTheSlimState() throws {
        let folder = TemporaryDirectory()
        let processor = CommandProcessor(
            log: try Self.log(lmdb: true, in: folder), clock: SteppingClock(), ids: SequentialIDGenerator(), cacheBudget: 1)
        for id in ["o1", "o2", "o3"] { _ = try processor.handle(Self.order(id)) }
        // A new id: the dropped orders' id hashes rule it out, so the slim state decides it.
        processor.dropStatesMissingRows([Self.order("o4")[2]], indices: [0])
        #expect(processor.cache["s1"]?.state.orders.count == 3)
        // An id they hold is decided against the whole history, loaded again.
        processor.dropStatesMissingRows([Self.order("o2")[2]], indices: [0])
        #expect(processor.cache["s1"] == nil)
    }
}
