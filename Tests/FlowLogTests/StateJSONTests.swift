import FlowDomain
import FlowLogBasics
import FlowLogStore
import Testing

/// `state --format json` writes a stream's state in pieces, so a history of many orders needs no
/// buffer of megabytes; the pieces must make the same document as writing it whole.
@Suite("State JSON in pieces")
struct StateJSONTests {
    private final class PieceOutput: OutputSink {
        var pieces: [[UInt8]] = []
        var failure: (any Error)?
        func write(_ bytes: [UInt8]) throws {
            if let failure { throw failure }
            pieces.append(bytes)
        }
    }

    private struct DiskFull: Error, Equatable {}

    private func stateWithOrders(_ count: Int) -> FlowState {
        var state = FlowDecider.replay([.cart(.productAdded(.init(productId: "p1", name: "Mug \"large\"", unitPrice: 1250, quantity: 2)))])
        state.orders = OrderHistory(orders: (1...count).map { Order(orderId: "order-\($0)", total: $0 * 10, itemCount: $0 % 7 + 1) })
        return state
    }

    @Test func aStateWithManyOrdersIsWrittenInPiecesThatMakeTheSameDocument() throws {
        let state = stateWithOrders(5_000)
        let output = PieceOutput()
        try FlowJSON.writeState(state, stream: "s-1", version: 9, to: output)
        #expect(output.pieces.count >= 3, "about 220 KB of orders, in pieces of about 64 KB")
        #expect(output.pieces.allSatisfy { $0.count < 70_000 })
        #expect(String(decoding: Array(output.pieces.joined()), as: UTF8.self) == FlowJSON.state(state, stream: "s-1", version: 9) + "\n")
    }

    @Test func aSmallStateIsOneWrite() throws {
        let output = PieceOutput()
        try FlowJSON.writeState(stateWithOrders(3), stream: "s-1", version: 2, to: output)
        #expect(output.pieces.count == 1)
    }

    @Test func anOutputThatFailsEndsTheWriteWithItsError() {
        let output = PieceOutput()
        output.failure = DiskFull()
        #expect(throws: DiskFull.self) { try FlowJSON.writeState(stateWithOrders(5_000), stream: "s-1", version: 9, to: output) }
        #expect(output.pieces.isEmpty)
    }
}
