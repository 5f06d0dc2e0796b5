import FlowDomain
import FlowLogBasics
import FlowLogTesting
import Testing

@testable import FlowLog

/// What the domain keeps beside its events (`KeptRow`: the orders) comes back whole on every
/// backend, however the state is loaded: from a head, from a snapshot and the backend's rows, or
/// by a fold. An order's currency is its cart's, which the event placing it does not repeat.
@Suite("Kept rows contract")
struct KeptRowsContractTests {
    @Test(arguments: LogKind.allCases)
    func statesLoadedThroughHeadsAndSnapshotsEqualAFoldInAnyCurrency(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        try log.setSnapshotInterval(25)
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 0))
        let commands = (1...30).flatMap { number in
            [
                CommandEnvelope(
                    stream: "shop",
                    command: .cart(
                        .addProduct(
                            .init(
                                productId: "p\(number % 3)", name: nil, unitPrice: 100 + number,
                                quantity: 1, currency: number < 20 ? "EUR" : "JPY")))),
                CommandEnvelope(stream: "shop", command: .cart(.checkout)),
                CommandEnvelope(stream: "shop", command: .payment(.succeeded(.init(orderId: "order-\(number)")))),
            ]
        }
        for command in commands {
            let outcome = try processor.handle([command])[0]
            guard case .accepted = outcome else {
                Issue.record("\(outcome)")
                return
            }
        }
        for position in [16, 33, 50, 75, 89, 90] {
            let (state, version) = try log.state(ofStream: "shop", throughPosition: position)
            let replayed = try log.replayedState(ofStream: "shop", throughPosition: position)
            #expect(version == replayed.version)
            #expect(state == replayed.state, "through position \(position)")
        }
        let orders = try log.state(ofStream: "shop").state.orders.orders
        #expect(orders.count == 30)
        #expect(orders.map(\.currency) == Array(repeating: "EUR", count: 19) + Array(repeating: "JPY", count: 11))
    }
}
