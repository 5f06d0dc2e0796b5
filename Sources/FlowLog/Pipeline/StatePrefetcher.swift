import FlowLogStore

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
///
/// "The first time" is remembered for the last 65,536 to 131,072 streams met, not for every one:
/// a set of every stream would grow with the sessions (a million new sessions, a million names).
/// A stream met again after that many others is looked up again; whatever this process wrote to
/// it is committed by then, and the cache, which the processor asks first, or the append's
/// version check, would catch anything else.
final class StatePrefetcher {
    private let source: any StatePrefetching
    /// Whether the processor's cache keeps long histories without their older kept rows
    /// (`LogCapabilities.keepsRowsApart`): then they are slimmed here, as the cache would.
    private let slims: Bool
    /// The streams looked up (or named) lately: `recent`, and the generation before it.
    private var met = RecentNames(generation: 65_536)

    /// About this many states of streams with events are loaded ahead for one slice of a read: a
    /// read that meets more such streams for the first time (one command per session in turn:
    /// every command of the first round) is cut into slices (`slices(of:)`), each ended by the
    /// lookup that brings it to this many (so never twice as many), so that the states in flight
    /// stay few. A 1 MiB read of sessions' visits names about 700 sessions, and is one slice.
    /// Streams without events cost a slice nothing: their states are the initial one. A read of
    /// new sessions goes on whole (one commit's worth, 3,072 of them), where slices of 1,024 had
    /// the writer's thread merge the slices' states and count their streams again for every commit.
    static let statesPerSlice = 1_024

    /// `nil` where the log cannot be read beside its writer.
    init?(log: any EventLog) {
        let capabilities = log.capabilities
        guard let source = capabilities.prefetching else { return nil }
        self.source = source
        slims = capabilities.keepsRowsApart
    }

    /// `part` cut into slices, in order, each with the states of the streams it meets first; the
    /// part itself, with its states, when it holds fewer than `statesPerSlice` states of streams
    /// with events. The streams are looked up `statesPerSlice` at a time, and a slice ends after
    /// the lookup that brings its states with events to `statesPerSlice` or more.
    func slices(of part: SendSession.ParsedBatch) -> [(batch: SendSession.ParsedBatch, states: LoadedAhead)] {
        /// The streams met first, `statesPerSlice` a lookup, each lookup with the envelope that meets its first.
        var lookups: [(start: Int, streams: [String], places: [Int])] = []
        var previous: String?
        for index in part.envelopes.indices {
            let stream = part.envelopes[index].stream
            if stream == previous { continue }
            previous = stream
            guard met.insert(stream) else { continue }
            if lookups.isEmpty || lookups[lookups.count - 1].streams.count == Self.statesPerSlice { lookups.append((index, [], [])) }
            lookups[lookups.count - 1].streams.append(stream)
            lookups[lookups.count - 1].places.append(index)
        }
        var slices: [LoadedAhead] = [LoadedAhead()]
        /// Where each slice after the first begins: its first envelope.
        var cuts: [Int] = []
        var held = 0
        let rowReaders = slims && !lookups.isEmpty ? Self.commandsThatMayNeedKeptRows(part.envelopes) : [:]
        for lookup in lookups {
            if held >= Self.statesPerSlice {
                cuts.append(lookup.start)
                slices.append(LoadedAhead())
                held = 0
            }
            // Into the slice's table as they come: merging a lookup's table into it copied every state.
            held += load(
                lookup.streams, at: lookup.places, sliceStart: cuts.last ?? 0, for: part.envelopes, rowReaders: rowReaders,
                into: &slices[slices.count - 1])
        }
        let batches = cuts.isEmpty ? [part] : part.cut(atEnvelopes: cuts)
        return Array(zip(batches, slices))
    }

    /// The states of `fresh`, streams `envelopes` name for the first time (at `places`), readied for
    /// deciding and added to `states`, the slice's that begins at envelope `sliceStart`; none when
    /// the read fails (the writer then loads them itself, and reports what it finds).
    /// `rowReaders`: `commandsThatMayNeedKeptRows(envelopes)`, where states are slimmed. Returns how
    /// many of them have events.
    private func load(
        _ fresh: [String], at places: [Int], sliceStart: Int, for envelopes: [CommandEnvelope],
        rowReaders: [String: [Int]], into states: inout LoadedAhead
    ) -> Int {
        guard !fresh.isEmpty,
            let loaded = try? source.committedStates(ofStreams: fresh, slimmingPast: slims ? LogDecider.rowsKeptWhole : nil)
        else { return 0 }
        var withEvents = 0
        /// Streams read slim that a command of the read needs whole: read again, whole.
        var wanted: [String] = []
        for (offset, (state, version)) in loaded.enumerated() {
            let stream = fresh[offset]
            guard version > 0 else {
                // A slice's commands count from its first; its end is where the part's next cut
                // falls, unknown yet, so the marks reach to the part's end, and cutting leaves the
                // later slices' marks unread past this slice's commands.
                states.markWithoutEvents(at: places[offset] - sliceStart, commands: envelopes.count - sliceStart)
                continue
            }
            withEvents += 1
            var value = state.value
            if slims, LogDecider.isSlimmedForCache(value) {
                // A head's rows come slim, with the rows of the events after it; a snapshot's (a
                // log without heads) whole. Either is slimmed here to the latest, as the cache would.
                let whole = LogDecider.holdsAllKeptRows(value)
                var slim = value
                LogDecider.slimForCache(&slim)
                // As the cache's own states: slim unless a command of the read needs the rows.
                if !(rowReaders[stream] ?? []).contains(where: { LogDecider.needsKeptRows(envelopes[$0].command, state: slim) }) {
                    value = slim
                } else if !whole {
                    wanted.append(stream)
                    continue
                }
            }
            states.add(CommandProcessor.readied((value, version)), for: stream)
        }
        if !wanted.isEmpty, let reread = try? source.committedStates(ofStreams: wanted, slimmingPast: nil) {
            for (stream, (state, version)) in zip(wanted, reread) { states.add(CommandProcessor.readied((state.value, version)), for: stream) }
        }
        return withEvents
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
