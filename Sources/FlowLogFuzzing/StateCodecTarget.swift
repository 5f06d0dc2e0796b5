import FlowDomain
import FlowLogBasics
import FlowLogStore

/// State snapshots and heads (`LogDomain`): what a log keeps of a stream's state every so many
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
            guard let state = FlowDecider.decodeState(input.rest()) else { return }
            StateChecks.checkRoundTrip(state)
        case 1:
            guard let (state, count) = FlowDecider.decodeStateWithoutKeptRows(input.rest()) else { return }
            var writer = BinaryWriter()
            FlowDecider.encode(state, withoutKeptRows: true, into: &writer)
            let again = writer.withUnsafeBytes { FlowDecider.decodeStateWithoutKeptRows($0) }
            fuzzCheck(
                again?.state == state && again?.keptRowCount == state.orders.count,
                "a state without orders (\(count) of them) read as \(state) reads back as \(String(describing: again))")
        case 2:
            guard let order = FlowDecider.decodeKeptRow(input.rest()) else { return }
            var writer = BinaryWriter()
            FlowDecider.encode(keptRow: order, into: &writer)
            let again = writer.withUnsafeBytes { FlowDecider.decodeKeptRow($0) }
            fuzzCheck(again == order, "\(order) reads back as \(String(describing: again))")
        default:
            let count = Int(input.byte())
            var page = Array(input.rest())
            withUnsafeBytes(of: XXHash64.hash(page).littleEndian) { page.append(contentsOf: $0) }
            var orders: [Order] = []
            let whole = page.withUnsafeBytes { FlowDecider.appendKeptRows(fromPage: $0, count: count, to: &orders) }
            fuzzCheck(whole ? orders.count == count : orders.isEmpty, "a page of \(count) orders gave \(orders.count) (whole: \(whole))")
        }
    }
}

/// What holds of every state a fold or a reader gives: it encodes, and reads back the same, with
/// the same fingerprint.
enum StateChecks {
    static func checkRoundTrip(_ state: FlowState) {
        var writer = BinaryWriter()
        let fingerprint = FlowDecider.fingerprint(state, scratch: &writer)
        guard state.orders.droppedCount == 0 else { return }
        FlowDecider.encode(state, withoutKeptRows: false, into: &writer)
        let again = writer.withUnsafeBytes { FlowDecider.decodeState($0) }
        fuzzCheck(again == state, "\(state) reads back as \(String(describing: again))")
        if let again { fuzzCheck(FlowDecider.fingerprint(again, scratch: &writer) == fingerprint, "a state read back has another fingerprint") }
    }
}
