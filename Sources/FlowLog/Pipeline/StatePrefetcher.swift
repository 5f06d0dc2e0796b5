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
    /// every command of the first round) is cut into slices (`slices(of:)`), each ended before the
    /// stream that would bring it past this many, so that the states in flight stay few. A 1 MiB
    /// read of sessions' visits names about 700 sessions, and is one slice. Streams without events
    /// cost a slice no state: theirs is the initial one. A read of new sessions named in sequence
    /// goes on whole (one commit's worth, 3,072 of them), where slices of 1,024 had the writer's
    /// thread merge the slices' states and count their streams again for every commit.
    static let statesPerSlice = 1_024

    /// The pages of the log's table of streams one slice's streams may change
    /// (`AppendRules.pagesPerCommit`; tests set fewer).
    private let pagesPerSlice: Int
    /// The pages of the last slice handed over, which the next part's first slice goes on from:
    /// `send` cuts its reads into parts of `AppendRules.streamsPerCommit` streams first, and a
    /// part of sessions with random ids cut at the pages' bound left a remainder that no commit
    /// could join with the next part's first slice, so commits held half the pages they might.
    private var lastSlice = SlicePages()

    /// `nil` where the log cannot be read beside its writer.
    init?(log: any EventLog, pagesPerSlice: Int = AppendRules.pagesPerCommit) {
        let capabilities = log.capabilities
        guard let source = capabilities.prefetching else { return nil }
        self.source = source
        slims = capabilities.keepsRowsApart
        self.pagesPerSlice = pagesPerSlice
    }

    /// `part` cut into slices, in order, each with the states of the streams it meets first and
    /// the pages of the log's table of streams its streams change (`SlicePages`); the part itself
    /// when it holds fewer than `statesPerSlice` states of streams with events and changes at most
    /// `pagesPerSlice` pages. The streams met first are looked up `statesPerSlice` at a time; a
    /// slice ends before the stream that would take it past either bound.
    func slices(of part: SendSession.ParsedBatch) -> [(batch: SendSession.ParsedBatch, states: LoadedAhead, pages: Int?)] {
        let envelopes = part.envelopes
        /// Each command that names another stream than the one before: the stream's hash and,
        /// for a stream met first, its place in `fresh`, else the page remembered for it.
        var changes: [(place: Int, hash: Int, fresh: Int?, page: Int?)] = []
        changes.reserveCapacity(envelopes.count)
        var fresh: [String] = []
        var previous: String?
        for index in envelopes.indices {
            let stream = envelopes[index].stream
            if stream == previous { continue }
            previous = stream
            let hash = stream.hashValue
            switch met.meet(hash: hash) {
            case .new:
                changes.append((index, hash, fresh.count, nil))
                fresh.append(stream)
            case .before(let page):
                changes.append((index, hash, nil, page))
            }
        }
        let rowReaders = slims && !fresh.isEmpty ? Self.commandsThatMayNeedKeptRows(envelopes) : [:]
        var found: [Found] = []
        found.reserveCapacity(fresh.count)
        for start in stride(from: 0, to: fresh.count, by: Self.statesPerSlice) {
            let streams = Array(fresh[start..<min(start + Self.statesPerSlice, fresh.count)])
            found += load(streams, for: envelopes, rowReaders: rowReaders) ?? streams.map { _ in .notLoaded }
        }
        var slices: [(start: Int, states: LoadedAhead, pages: Int)] = [(0, LoadedAhead(), 0)]
        var pages = lastSlice
        /// What the first slice's pages begin from: the last slice's, which it is not weighed by.
        var carried = pages.count
        var held = 0
        for change in changes {
            let page: Int?
            var bringsState = false
            if let index = change.fresh {
                // By index, not a copy of what was found: a state's copy retains its parts.
                switch found[index] {
                case .withEvents(_, let at):
                    page = at
                    bringsState = true
                case .withoutEvents(let at): page = at
                case .notLoaded: page = nil
                }
                met.remember(page, forHash: change.hash)
            } else {
                // Met before without a page: maybe met first earlier in this part, remembered since.
                page = change.page ?? met.number(forHash: change.hash)
            }
            // The first stream of a slice always fits.
            if !pages.admits(page: page, hash: change.hash, within: pagesPerSlice) || (bringsState && held == Self.statesPerSlice) {
                // A slice with no command yet (the last slice's pages were full) begins afresh.
                if change.place > slices[slices.count - 1].start {
                    slices[slices.count - 1].pages = pages.count - carried
                    slices.append((change.place, LoadedAhead(), 0))
                }
                carried = 0
                pages = SlicePages()
                held = 0
                _ = pages.admits(page: page, hash: change.hash, within: pagesPerSlice)
            }
            guard let index = change.fresh else { continue }
            let sliceStart = slices[slices.count - 1].start
            if case .withEvents(let state, _) = found[index] {
                slices[slices.count - 1].states.add(state, for: fresh[index])
                held += 1
            } else if case .withoutEvents = found[index] {
                // A slice's commands count from its first; its end is where the next cut falls,
                // unknown yet, so the marks reach to the part's end, and cutting leaves them unread
                // past this slice's commands.
                slices[slices.count - 1].states.markWithoutEvents(at: change.place - sliceStart, commands: envelopes.count - sliceStart)
            }
        }
        slices[slices.count - 1].pages = pages.count - carried
        // Only a slice after a cut goes on into the next part: one that was never cut (sessions
        // named in sequence) would carry every part's streams into the next, and cut it for them.
        lastSlice = slices.count > 1 ? pages : SlicePages()
        let batches = slices.count == 1 ? [part] : part.cut(atEnvelopes: slices.dropFirst().map(\.start))
        return zip(batches, slices).map { ($0, $1.states, $1.pages) }
    }

    /// What the look-ahead found of a stream it looked up, and the page its entry falls on.
    private enum Found {
        case withEvents(LoadedAhead.Entry, page: Int?)
        case withoutEvents(page: Int?)
        /// The read failed: the writer loads the stream itself, and reports what it finds.
        case notLoaded
    }

    /// What `fresh`, streams `envelopes` name for the first time, hold in the log, each readied for
    /// deciding; `nil` when the read fails. `rowReaders`: `commandsThatMayNeedKeptRows(envelopes)`,
    /// where states are slimmed.
    private func load(_ fresh: [String], for envelopes: [CommandEnvelope], rowReaders: [String: [Int]]) -> [Found]? {
        guard let loaded = try? source.committedStates(ofStreams: fresh, slimmingPast: slims ? LogDecider.rowsKeptWhole : nil)
        else { return nil }
        var found: [Found] = []
        found.reserveCapacity(fresh.count)
        /// Streams read slim that a command of the read needs whole, by their place in `fresh`: read again, whole.
        var wanted: [Int] = []
        for (offset, read) in loaded.enumerated() {
            guard read.version > 0 else {
                found.append(.withoutEvents(page: read.tablePage))
                continue
            }
            var value = read.state.value
            if slims, LogDecider.isSlimmedForCache(value) {
                // A head's rows come slim, with the rows of the events after it; a snapshot's (a
                // log without heads) whole. Either is slimmed here to the latest, as the cache would.
                let whole = LogDecider.holdsAllKeptRows(value)
                var slim = value
                LogDecider.slimForCache(&slim)
                // As the cache's own states: slim unless a command of the read needs the rows.
                if !(rowReaders[fresh[offset]] ?? []).contains(where: { LogDecider.needsKeptRows(envelopes[$0].command, state: slim) }) {
                    value = slim
                } else if !whole {
                    wanted.append(offset)
                    found.append(.notLoaded)
                    continue
                }
            }
            found.append(.withEvents(CommandProcessor.readied((value, read.version)), page: read.tablePage))
        }
        if !wanted.isEmpty, let reread = try? source.committedStates(ofStreams: wanted.map { fresh[$0] }, slimmingPast: nil) {
            for (offset, read) in zip(wanted, reread) {
                found[offset] = .withEvents(CommandProcessor.readied((read.state.value, read.version)), page: read.tablePage)
            }
        }
        return found
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
