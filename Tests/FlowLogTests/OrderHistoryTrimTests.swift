import FlowDomain
import FlowLogBasics
import FlowLogStore
import Testing

/// An import into LMDB keeps of each stream's orders only the last and their number
/// (`OrderHistory.keepOnlyLatest`): what it writes from such a state (fingerprints, snapshots and
/// heads without orders) must be what the whole history gives.
@Suite("Order histories that keep only their last order")
struct OrderHistoryTrimTests {
    @Test func aTrimmedHistoryFingerprintsAndEncodesAsTheWholeOne() {
        var whole = FlowDecider.initialState
        var trimmed = whole
        var scratch = BinaryWriter(capacity: 64)
        for index in 1...40 {
            let event = AppEvent.cart(.orderPlaced(.init(orderId: "o-\(index)", total: 100 * index, itemCount: index % 3 + 1)))
            FlowDecider.evolve(&whole, event)
            FlowDecider.evolve(&trimmed, event)
            trimmed.orders.keepOnlyLatest()
            #expect(trimmed.orders.count == index && trimmed.orders.orders.count == 1)
            #expect(trimmed.orders.orders.last == whole.orders.orders.last)
            #expect(FlowDecider.fingerprint(trimmed, scratch: &scratch) == FlowDecider.fingerprint(whole, scratch: &scratch))
            var encodedTrimmed = BinaryWriter(capacity: 64)
            var encodedWhole = BinaryWriter(capacity: 64)
            FlowDecider.encode(trimmed, withoutKeptRows: true, into: &encodedTrimmed)
            FlowDecider.encode(whole, withoutKeptRows: true, into: &encodedWhole)
            #expect(encodedTrimmed.bytes == encodedWhole.bytes)
        }
        #expect(trimmed.orders != whole.orders, "a trimmed history is not the whole one")
        #expect(trimmed.orders.droppedCount == 39 && whole.orders.droppedCount == 0)
    }
}
