import FlowDomain
import FlowLogBasics
import FlowLogStore

/// State snapshots and heads (`StateCodec`): what a log keeps of a stream's state every so many
/// versions, and the pages of its kept orders, read back from the same untrusted files as records
/// (snapshots and pages carry a checksum, which anyone who writes the file can reseal). The first
/// byte chooses the reader; the rest is its input:
///
/// 0: a whole state; 1: a state without its orders (a snapshot's or head's value); 2: one order;
/// 3: an order page (the input's bytes, resealed) holding as many orders as the next byte says.
///
/// Every reader returns a value or `nil`, never traps; what one reads, written again, reads the same.
enum StateCodecTarget {
    static let target = FuzzTarget(
        name: "state-codec",
        checks: "a state snapshot, a head, an order or an order page: read or refused, never a trap; what is read is written and read again the same",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        switch input.byte() % 4 {
        case 0:
            guard let state = StateCodec.decode(input.rest()) else { return }
            StateChecks.checkRoundTrip(state)
        case 1:
            guard let (state, count) = StateCodec.decodeWithoutOrders(input.rest()) else { return }
            var writer = BinaryWriter()
            StateCodec.encode(state, withoutOrders: true, into: &writer)
            let again = writer.withUnsafeBytes { StateCodec.decodeWithoutOrders($0) }
            fuzzCheck(
                again?.0 == state && again?.orderCount == state.orders.count,
                "a state without orders (\(count) of them) read as \(state) reads back as \(String(describing: again))")
        case 2:
            guard let order = StateCodec.decodeOrder(input.rest()) else { return }
            var writer = BinaryWriter()
            StateCodec.encode(order: order, into: &writer)
            let again = writer.withUnsafeBytes { StateCodec.decodeOrder($0) }
            fuzzCheck(again == order, "\(order) reads back as \(String(describing: again))")
        default:
            let count = Int(input.byte())
            var page = Array(input.rest())
            withUnsafeBytes(of: XXHash64.hash(page).littleEndian) { page.append(contentsOf: $0) }
            var orders: [Order] = []
            let whole = page.withUnsafeBytes { StateCodec.appendOrders(fromPage: $0, count: count, to: &orders) }
            fuzzCheck(whole ? orders.count == count : orders.isEmpty, "a page of \(count) orders gave \(orders.count) (whole: \(whole))")
        }
    }
}

/// What holds of every state a fold or a reader gives: it encodes, and reads back the same, with
/// the same fingerprint.
enum StateChecks {
    static func checkRoundTrip(_ state: FlowState) {
        var writer = BinaryWriter()
        let fingerprint = StateCodec.fingerprint(state, scratch: &writer)
        guard state.orders.droppedCount == 0 else { return }
        StateCodec.encode(state, into: &writer)
        let again = writer.withUnsafeBytes { StateCodec.decode($0) }
        fuzzCheck(again == state, "\(state) reads back as \(String(describing: again))")
        if let again { fuzzCheck(StateCodec.fingerprint(again, scratch: &writer) == fingerprint, "a state read back has another fingerprint") }
    }
}
