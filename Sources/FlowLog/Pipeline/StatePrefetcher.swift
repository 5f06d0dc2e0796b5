import FlowDomain

/// `send`'s look ahead: on the reading thread, the states of the streams a read names for the
/// first time, loaded from the log while the writer's thread decides and commits the reads before
/// (`StatePrefetching`), and handed over with the read's commands.
///
/// In a grown log a session's state is its head, its last events and its kept rows (70 orders, in
/// the bench's sessions), and the writer's thread spent a third of a `send` loading them, then
/// slimming them for its cache, while the reading thread idled. A stream is looked up only the
/// first time the input names it: until then this process has written nothing to it, so the state
/// the log committed is its state, unless another process writes it meanwhile, which the
/// processor's checks of a cached state catch (`CommandProcessor+Staleness`). A stream the input
/// names again is the processor's to keep or load.
final class StatePrefetcher: @unchecked Sendable {
    typealias States = [String: (state: LogDecider.State, version: Int)]

    private let source: any StatePrefetching
    /// Whether the processor's cache keeps long histories without their older kept rows
    /// (`LogCapabilities.keepsRowsApart`): then they are slimmed here, as the cache would.
    private let slims: Bool
    /// Every stream looked up (or named) so far.
    private var met: Set<String> = []

    /// A read's new streams are loaded ahead only where its commands are at least this many times
    /// as many: a state loaded ahead waits in the queue beside its commands, and one command per
    /// session in turn (10,000 sessions in the 10M-event log) kept 8,192 states there, took `send`
    /// from 64 to 74 MB, and gained nothing. Sessions' visits (14 commands each) still are.
    static let commandsPerState = 4

    /// At most this many states are loaded ahead for one read: one command per session in turn
    /// over 2,100 sessions (each about five times in a 1 MiB read) loaded all 2,100, and `send`
    /// went from 64 to 68 MB. A 1 MiB read of sessions' visits names about 700 sessions.
    static let statesPerRead = 1_024

    /// `nil` where the log cannot be read beside its writer, or does not exist yet (a log the
    /// first commit creates has no states to load).
    init?(log: any EventLog) {
        let capabilities = log.capabilities
        guard let source = capabilities.prefetching else { return nil }
        self.source = source
        slims = capabilities.keepsRowsApart
    }

    /// The states of the streams `envelopes` name for the first time, readied for deciding; none
    /// when the read fails (the writer then loads them itself, and reports what it finds).
    func states(for envelopes: [CommandEnvelope]) -> States {
        var fresh: [String] = []
        /// The streams met for the first time, loaded ahead or not.
        var meeting = 0
        var previous: String?
        for index in envelopes.indices {
            let stream = envelopes[index].stream
            if stream == previous { continue }
            previous = stream
            guard met.insert(stream).inserted else { continue }
            meeting += 1
            // Past the cap the stream is met all the same: the processor loads it.
            if fresh.count < Self.statesPerRead { fresh.append(stream) }
        }
        guard !fresh.isEmpty, meeting * Self.commandsPerState <= envelopes.count,
              let loaded = try? source.committedStates(ofStreams: fresh, slimmingPast: slims ? StateUpkeep.rowsKeptWhole : nil)
        else { return [:] }
        let rowReaders = slims ? Self.commandsThatMayNeedKeptRows(envelopes) : [:]
        var states: States = [:]
        states.reserveCapacity(fresh.count)
        /// Streams read slim that a command of the read needs whole: read again, whole.
        var wanted: [String] = []
        for (stream, (state, version)) in zip(fresh, loaded) {
            var value = state.value
            if slims, StateUpkeep.isSlimmedForCache(value) {
                // A head's rows come slim, with the rows of the events after it; a snapshot's (a
                // log without heads) whole. Either is slimmed here to the latest, as the cache would.
                let whole = StateUpkeep.holdsAllKeptRows(value)
                var slim = value
                StateUpkeep.slimForCache(&slim)
                // As the cache's own states: slim unless a command of the read needs the rows.
                if !(rowReaders[stream] ?? []).contains(where: { LogDecider.needsKeptRows(envelopes[$0].command, state: slim) }) {
                    value = slim
                } else if !whole {
                    wanted.append(stream)
                    continue
                }
            }
            states[stream] = CommandProcessor.readied((value, version))
        }
        if !wanted.isEmpty, let reread = try? source.committedStates(ofStreams: wanted, slimmingPast: nil) {
            for (stream, (state, version)) in zip(wanted, reread) { states[stream] = CommandProcessor.readied((state.value, version)) }
        }
        return states
    }

    /// The commands that may be decided against their stream's older kept rows, by stream.
    private static func commandsThatMayNeedKeptRows(_ envelopes: [CommandEnvelope]) -> [String: [Int]] {
        var commands: [String: [Int]] = [:]
        for index in envelopes.indices where LogDecider.mayNeedKeptRows(envelopes[index].command) {
            commands[envelopes[index].stream, default: []].append(index)
        }
        return commands
    }
}
