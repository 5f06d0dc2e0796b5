import FlowDomain
import FlowLogTesting
import Testing

@testable import FlowLogLMDB
@testable import FlowLogStore

/// The streams an import sets aside (`SpilledStreams`): written a bounded number to a transaction,
/// and read back whole, whatever the order they were set aside in.
@Suite("spilled streams")
struct SpilledStreamsTests {
    /// More streams than one transaction takes, in no order, with one set aside again later: each
    /// comes back as it was last set aside, and the walk gives them all once, in key order.
    @Test func streamsSetAsideOverManyTransactionsComeBackWholeAndInKeyOrder() throws {
        let folder = TemporaryDirectory()
        let spill = try SpilledStreams(folder: folder.child("spill"), wholeStates: true)
        // Given 2.5 transactions' worth of streams, named in no order, each with a state of its own
        let count = SpilledStreams.streamsPerTransaction * 5 / 2
        let names = (0..<count).map { "session-\(($0 * 7_919) % count)" }
        func state(_ number: Int) -> StreamState {
            var state = StreamState.initial
            let added = CartEvent.productAdded(.init(productId: "p\(number)", name: "Product", unitPrice: 100 + number, quantity: 1))
            FlowDecider.evolve(&state.value, .cart(added))
            return state
        }
        let streams = names.enumerated().map { (stream: $1, version: $0 + 1, position: 10 * $0 + 1, state: state($0)) }
        // When they are set aside, and the first of them again with a later version
        try spill.setAside(streams)
        try spill.setAside([(stream: names[0], version: 99, position: 999, state: state(99))])
        // Then each comes back as set aside last
        for (offset, name) in names.enumerated().dropFirst() {
            let back = try #require(try spill.takeBack(name))
            #expect(back.version == offset + 1 && back.position == 10 * offset + 1 && back.state == state(offset), "\(name)")
        }
        let first = try #require(try spill.takeBack(names[0]))
        #expect(first.version == 99 && first.position == 999 && first.state == state(99))
        #expect(try spill.takeBack("session-\(count)") == nil)
        // And the walk holds each once, in the byte order of their names
        var walked: [String] = []
        try spill.forEachStream { stream, _, _, _ in walked.append(stream) }
        #expect(walked == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }
}
