import FlowDomain
import FlowLogBasics
import FlowLogStore

/// "Decode then fold": what every read of a stream does with events from a log or an import, and
/// what replay, `state --at` and the server's state routes rest on. The input picks a starting
/// state (the initial one, or one read from a snapshot's bytes) and then events, each either built
/// from the input and passed through a stored record (so that only what a reader accepts is
/// folded), or read from an export line the input holds. Each is folded with `FlowDecider.evolve`,
/// and every state on the way encodes and reads back the same (`StateChecks`). Nothing traps.
enum DecodeFoldTarget {
    static let target = FuzzTarget(
        name: "decode-fold",
        checks:
            "events read from records or export lines, folded one after another from the initial state or a decoded snapshot: never a trap; every state encodes and reads back the same",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        var state = FlowDecider.initialState
        if input.bool(), let decoded = FlowDecider.decodeState(input.chunk()) { state = decoded }
        var folded = 0
        while !input.isExhausted, folded < 64 {
            guard let event = nextEvent(&input) else { continue }
            FlowDecider.evolve(&state, event)
            StateChecks.checkRoundTrip(state)
            folded += 1
        }
    }

    private static func nextEvent(_ input: inout FuzzInput) -> AppEvent? {
        if input.byte() % 4 == 0 {
            return try? RecordedEventJSON.decode(input.chunk()).event
        }
        let record = FuzzedEvents.record(&input, position: 1)
        var writer = BinaryWriter()
        _ = RecordCodec.encode(record, previousHash: RecordCodec.genesisHash, layout: .whole, salts: &FuzzSalts.supply, into: &writer)
        return writer.withUnsafeBytes { try? RecordCodec.decode($0, expectedPosition: 1, previousHash: RecordCodec.genesisHash).0.event }
    }
}
