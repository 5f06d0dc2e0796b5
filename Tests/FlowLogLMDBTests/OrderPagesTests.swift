import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogLMDB

/// A long stream's orders are kept twice: one entry each in the order index, and in pages of
/// `rowsPerPage` written as each page fills. States read through pages must equal a fold of the events.
@Suite("Order pages")
struct OrderPagesTests {
    /// A log whose stream "shop" placed `orders` orders (three events each), through the command pipeline.
    private func logWithOrders(_ orders: Int, currency: String? = nil, in folder: TemporaryDirectory) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: folder.child("log"), foldPolicy: .foldingEveryCommit)
        try log.setSnapshotInterval(100)
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 0))
        let commands = (1...orders).flatMap { number in
            [
                CommandEnvelope(
                    stream: "shop",
                    command: .cart(
                        .addProduct(.init(productId: "p\(number % 5)", name: nil, unitPrice: 100 + number, quantity: 1, currency: currency)))),
                CommandEnvelope(stream: "shop", command: .cart(.checkout)),
                CommandEnvelope(stream: "shop", command: .payment(.succeeded(.init(orderId: "order-\(number)")))),
            ]
        }
        for batch in stride(from: 0, to: commands.count, by: 3_000) {
            let outcomes = try processor.handle(Array(commands[batch..<min(batch + 3_000, commands.count)]))
            try #require(outcomes.allSatisfy { if case .accepted = $0 { true } else { false } })
        }
        return log
    }

    /// The state of "shop" through `position`, folded from its events with no snapshot or index.
    private func folded(_ log: LMDBEventLog, through position: Int) throws -> FlowState {
        var state = FlowDecider.initialState
        try log.forEachEvent(inStream: "shop", throughPosition: position) { record in
            FlowDecider.evolve(&state, record.event)
            return true
        }
        return state
    }

    @Test func aPageIsWrittenAsItFillsAndStatesReadThroughPagesEqualTheFold() throws {
        let folder = TemporaryDirectory()
        let log = try logWithOrders(2_100, in: folder)
        let pages = try log.reading { txn in try txn.count(try #require(log.rowPagesDB)) }
        #expect(pages == 2, "2,100 orders fill two pages of 1,024")
        // Just before and after each page fills, and the end.
        for position in [3 * 1_023, 3 * 1_024, 3 * 1_024 + 2, 3 * 2_048, 3 * 2_100] {
            let (state, version) = try log.state(ofStream: "shop", throughPosition: position)
            #expect(version == position)
            #expect(state == (try folded(log, through: position)), "state through position \(position)")
        }
    }

    /// An order's currency is its cart's, which the event placing it does not repeat: the row kept
    /// beside the event is read from the state after it, so a state loaded from a head or a
    /// snapshot and the row index has the orders a fold has, and `replay --verify` agrees.
    @Test func ordersInAnotherCurrencyKeepItThroughHeadsAndSnapshots() throws {
        let folder = TemporaryDirectory()
        let log = try logWithOrders(40, currency: "EUR", in: folder)
        let (state, version) = try log.state(ofStream: "shop", throughPosition: nil)
        #expect(version == 120)
        #expect(state.orders.orders.allSatisfy { $0.currency == "EUR" })
        #expect(state == (try folded(log, through: 120)))
        for position in [17, 50, 101] {
            #expect(try log.state(ofStream: "shop", throughPosition: position).state == (try folded(log, through: position)))
        }
        let stored = try log.reading { txn in try log.keptRows(of: "shop", count: 40, try PendingIndex.load(log, txn), txn) }
        #expect(stored?.rows.map(\.currency) == Array(repeating: "EUR", count: 40))
    }

    @Test func ordersInAFullPageAreReadFromThePage() throws {
        let folder = TemporaryDirectory()
        let log = try logWithOrders(1_100, in: folder)
        // Change order 5 in the order index only: a read that goes through page 1 does not see it.
        try log.environment.write { txn in
            var value = BinaryWriter(capacity: 64)
            value.write(UInt64(15))
            FlowDecider.encode(keptRow: Order(orderId: "changed", total: 1, itemCount: 1), into: &value)
            try txn.put(log.rowsDB, key: Keys.streamVersion("shop", 5), value: value.bytes)
        }
        let state = try log.state(ofStream: "shop", throughPosition: nil).state
        #expect(state.orders.orders[4].orderId == "order-5")
        #expect(state.orders.orders.count == 1_100)
    }

    @Test func aDamagedPageIsPassedOverAndTheOrderIndexAnswers() throws {
        let folder = TemporaryDirectory()
        let log = try logWithOrders(1_100, in: folder)
        try log.environment.write { txn in
            let pages = try #require(log.rowPagesDB)
            var page = try #require(try txn.get(pages, key: Keys.streamVersion("shop", 1)).map(Array.init))
            page[100] ^= 0x20
            try txn.put(pages, key: Keys.streamVersion("shop", 1), value: page)
        }
        let end = try log.lastPosition()
        #expect(try log.state(ofStream: "shop", throughPosition: nil).state == (try folded(log, through: end)))
    }
}
