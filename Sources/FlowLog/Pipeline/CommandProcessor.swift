import Deciding
public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem

/// The command pipeline: field checks → command id → expected version → `decide` → one durable append
/// per batch → answers. Answers are returned only after their events are on disk.
///
/// It keeps the states of the streams it touched (as many as `StateCache`'s budget holds), so a long
/// `send` rarely loads a stream twice.
/// The cache is only a hint: the log's append re-checks each stream's version inside its write
/// transaction, and a stream that another process moved meanwhile is reloaded and the command decided again.
public final class CommandProcessor {
    let log: any EventLog
    let clock: any WallClock
    var ids: any EventIDGenerator
    /// Internal, not private: CommandProcessor+Staleness reads and drops entries.
    var cache: StateCache
    /// The log's snapshot interval, read once (`nil`: unknown, so every request carries its state).
    let snapshotInterval: Int?
    private var scratch = BinaryWriter(capacity: 512)
    /// How often a batch is re-decided when other writers keep moving its streams.
    private let maximumRetries = 32
    /// The commits `handleDeferringCommit` did not wait for (nil: every append waits for its own).
    var deferredCommits: [any PendingCommit]?
    /// The log's settings, read at the first command: which kind versions it may hold.
    var settings: LogSettings?
    /// States `send`'s reading thread loaded ahead for the batch being handled (`StatePrefetcher`),
    /// each taken by the first command of its stream that the cache cannot serve.
    /// Internal, not private: CommandProcessor+KeptRows drops slim ones a command needs whole.
    var prefetched = LoadedAhead()
    /// The trace context kept with the events of a command that names none: the span the commands
    /// are handled in, when spans are exported (`send`'s own; the server names each request's).
    public var defaultTraceContext: TraceContext?

    /// `cacheBudget`: about how many bytes of stream states to keep between batches (`StateCache`);
    /// the default holds about 13,000 sessions with ten cart lines each (whatever their orders:
    /// the cache keeps the latest only), more than the 10,000 of the bench's largest log of long
    /// sessions; a budget of 32 MB took a `send` of ten million short sessions over its memory goal.
    public init(
        log: any EventLog, clock: any WallClock = SystemClock(), ids: any EventIDGenerator = UUIDv7Generator(),
        cacheBudget: Int = 24 << 20
    ) {
        self.log = log
        self.cache = StateCache(budget: cacheBudget)
        snapshotInterval = try? log.capabilities.snapshots?.snapshotInterval()
        self.clock = clock
        self.ids = ids
    }

    public func handle(_ envelope: CommandEnvelope) throws -> CommandOutcome {
        try handle([envelope])[0]
    }

    /// Handles a batch with one durable write for all of it; the answers are in the batch's order.
    /// `fieldsChecked`: every envelope passed `envelopeViolation` already (on `send`'s reading thread).
    public func handle(_ batch: [CommandEnvelope], fieldsChecked: Bool = false) throws -> [CommandOutcome] {
        try handle(batch, fieldsChecked: fieldsChecked, prefetched: LoadedAhead())
    }

    /// `handle`, with states of the batch's streams loaded ahead, for its first round: a round
    /// after it decides again the commands of streams the log moved, whose states it loads.
    func handle(_ batch: [CommandEnvelope], fieldsChecked: Bool, prefetched: LoadedAhead) throws -> [CommandOutcome] {
        self.prefetched = prefetched
        defer { self.prefetched = LoadedAhead() }
        var outcomes = [CommandOutcome](repeating: Self.undecided, count: batch.count)
        var pending = Array(batch.indices)
        var attempt = 0
        var checked: Set<String> = []
        while !pending.isEmpty {
            attempt += 1
            pending = try decideAndAppend(
                batch, indices: pending, into: &outcomes, finalAttempt: attempt >= maximumRetries,
                fieldsChecked: fieldsChecked, checked: &checked)
            if !self.prefetched.isEmpty { self.prefetched = LoadedAhead() }
            if !pending.isEmpty { Self.backOff(attempt) }
        }
        assert(!outcomes.contains(where: Self.isUndecided), "every command of a handled batch has its answer")
        return outcomes
    }

    /// The place of an answer not decided yet. Not an optional, so that the batch's answers are
    /// returned as they are: with optionals they were moved into a second array, and the first,
    /// 16,384 empty optionals, destroyed element by element.
    static let undecided = CommandOutcome.rejected(stream: "", Rejection(.malformedCommand, ""))

    static func isUndecided(_ outcome: CommandOutcome) -> Bool {
        if case .rejected(let stream, let rejection) = outcome { return stream.isEmpty && rejection.message.isEmpty }
        return false
    }

    /// Writers that keep colliding on the same streams (many processes on one PostgreSQL log) fall
    /// out of step by waiting a random while, growing with each round, before deciding again.
    static func backOff(_ attempt: Int) {
        let pause = collisionRetry.delay(afterAttempt: attempt, random: Double.random(in: 0...1))
        usleep(UInt32(pause * 1_000_000))
    }

    /// From 2 ms, doubling to 64 ms, never less than a quarter of the ceiling.
    static let collisionRetry = RetryPolicy(firstDelay: 0.002, maximumDelay: 0.064, leastShare: 0.25)

    /// The current state of a stream, from the cache or the log.
    public func state(of stream: String) throws -> (state: LogDecider.State, version: Int) {
        if !cache.isPartial(stream), let cached = cache[stream] { return cached }
        let loaded = try load(stream)
        cache.put(loaded, for: stream)
        return loaded
    }

    /// A stream's state from the log, made ready to decide many commands (the order ids of a long
    /// history indexed).
    private func load(_ stream: String) throws -> (state: LogDecider.State, version: Int) {
        Self.readied(try log.state(ofStream: stream))
    }

    static func readied(_ loaded: (state: LogDecider.State, version: Int)) -> (state: LogDecider.State, version: Int) {
        var loaded = loaded
        LogDecider.readyForDeciding(&loaded.state)
        return loaded
    }

    /// The version and state checks of one command against its stream's working state; on success the
    /// working state moves past the command's events, and its request and events are appended to
    /// `requests` and `decided` (there, not returned: a request handed back in an enum was copied
    /// twice more, retaining every string it holds each time). Returns the rejection otherwise.
    private func decide(
        _ envelope: CommandEnvelope, against current: inout WorkingStream, fingerprint: UInt64?, round: Round,
        into requests: inout [AppendRequest], decided: inout [[LogDecider.Event]]
    ) -> Rejection? {
        if let expected = envelope.expectedVersion, expected != current.version {
            return Self.versionConflict(envelope, actual: current.version)
        }
        let events: [LogDecider.Event]
        do {
            events = try LogDecider.decideValidated(envelope.command, state: current.state, context: round.context)
            if !round.admitsEveryEvent { try admit(events) }
        } catch {
            return error
        }
        let timestamp = clock.now()
        let actor = envelope.command.actor
        let newEvents = events.map { event in
            NewEvent(
                eventId: ids.next(at: timestamp), timestamp: timestamp, actor: actor,
                correlationId: envelope.correlationId, causationId: envelope.commandId,
                traceContext: envelope.traceContext ?? defaultTraceContext, event: event)
        }
        var fingerprints: [UInt64] = []
        fingerprints.reserveCapacity(events.count)
        var keptRows: [KeptRow] = []
        for event in events {
            LogDecider.evolve(&current.state, event)
            fingerprints.append(LogDecider.fingerprint(current.state, scratch: &scratch))
            if let row = KeptRow(keptBy: event, after: current.state) { keptRows.append(row) }
        }
        let after = current.version + events.count
        // The state goes along only where the log keeps it (a head, a snapshot): a copy held by every
        // request made the next order of its stream copy the stream's orders and their index.
        let keeps =
            current.version / AppendRules.headInterval != after / AppendRules.headInterval
            || round.snapshotInterval.map { $0 > 0 && current.version / $0 != after / $0 } ?? true
        requests.append(
            AppendRequest(
                stream: envelope.stream, expectedVersion: current.version, commandId: envelope.commandId,
                events: newEvents, chained: current.requested, fingerprints: fingerprints,
                stateAfter: keeps ? stateToKeep(current.state) : nil, keptRows: keptRows, commandFingerprint: fingerprint))
        decided.append(events)
        current.version += events.count
        current.requested = true
        return nil
    }

    /// What every command of a round is decided with, read once for the round rather than from
    /// the processor's properties for each command.
    private struct Round {
        let context: LogDecider.Context
        /// The log holds every kind's every version: `admit` has nothing to refuse.
        let admitsEveryEvent: Bool
        let snapshotInterval: Int?
    }

    /// Refuses events whose kind's version the log's schema cannot hold, after reading the settings
    /// again in case another process upgraded the log meanwhile.
    private func admit(_ events: [LogDecider.Event]) throws(Rejection) {
        for event in events where !(settings ?? .newLog()).admits(event) {
            if let fresh = try? log.settings(), fresh != settings {
                settings = fresh
                if fresh.admits(event) { continue }
            }
            throw (settings ?? .newLog()).refusal(of: event, location: log.location)
        }
    }

    /// The state of a stream, moved out of the cache (or the states loaded ahead, or loaded now):
    /// the caller puts it back. One loaded ahead is as good as a cached one, and checked as one.
    private func takeState(of stream: String, hash: Int, at place: Int) throws -> WorkingStream {
        if let cached = cache.take(stream, hash: hash) { return WorkingStream(cached, cached: true) }
        if !prefetched.isEmpty, let ahead = prefetched.take(stream, at: place) { return WorkingStream(ahead, cached: true) }
        return WorkingStream(try load(stream), cached: false)
    }

    /// One round: decide every pending command, append the accepted ones in one transaction, and return
    /// the indices that must be decided again because another writer moved their stream meanwhile
    /// (found by the append's version check, or, for a command rejected against a cached state, by
    /// `staleStreams`).
    private func decideAndAppend(
        _ batch: [CommandEnvelope], indices: [Int], into outcomes: inout [CommandOutcome], finalAttempt: Bool,
        fieldsChecked: Bool, checked: inout Set<String>
    ) throws -> [Int] {
        if settings == nil { settings = try log.settings() }
        let current = settings ?? .newLog()
        let round = Round(
            context: LogDecider.decisionContext(defaultCurrency: current.defaultCurrency), admitsEveryEvent: current.admitsEveryEvent,
            snapshotInterval: snapshotInterval)
        dropStatesMissingRows(batch, indices: indices)
        // Room for as many streams as a commit of `send` names: growing it moved every state in it,
        // a dozen times in a round of new sessions.
        var working = try preload(batch, indices: indices, capacity: min(indices.count, AppendRules.streamsPerCommit))
        let knownReceipts = try prefetchReceipts(batch, indices: indices)
        /// Per stream, the command ids accepted earlier in this batch, and the request that carries each.
        var idsInBatch: [String: [String: Int]] = [:]
        /// Commands whose id repeats one earlier in the batch: they share its answer.
        var twins: [(index: Int, request: Int)] = []
        /// Commands whose id an earlier, different command of the batch took: refused once that one's
        /// positions are known, so the answer names them wherever the batch happened to end.
        var conflicts: [(index: Int, request: Int)] = []
        // Room for every command at once: growing them copied every request made so far, twice over.
        var requests: [AppendRequest] = []
        requests.reserveCapacity(indices.count)
        var requestOwners: [Int] = []
        requestOwners.reserveCapacity(indices.count)
        var requestEvents: [[LogDecider.Event]] = []
        requestEvents.reserveCapacity(indices.count)
        /// Commands rejected against a state that came from the cache: the answer waits for `staleStreams`.
        var cachedRejections: [(index: Int, stream: String)] = []
        /// The stream of the command before and its place in `working`: a session's commands come
        /// in a row, and comparing a name costs less than hashing it.
        var previous: (stream: String, slot: Int)?
        for index in indices {
            let envelope = batch[index]
            if !fieldsChecked, let rejection = Self.envelopeViolation(envelope) {
                outcomes[index] = .rejected(stream: envelope.stream, rejection)
                continue
            }
            let fingerprint = envelope.commandId.map { _ in CommandFingerprint.of(envelope.command) }
            if let id = envelope.commandId {
                if let request = idsInBatch[envelope.stream]?[id] {
                    if requests[request].commandFingerprint != fingerprint {
                        conflicts.append((index, request))
                    } else {
                        twins.append((index, request))
                    }
                    continue
                }
                if let receipt = try knownReceipts.map({ $0[envelope.stream]?[id] }) ?? log.receipt(stream: envelope.stream, commandId: id) {
                    outcomes[index] = Self.retry(envelope, id: id, fingerprint: fingerprint, receipt: receipt)
                    continue
                }
            }
            // One lookup of the stream per command: its working state is changed in place, by index.
            let slot: Int
            if let previous, previous.stream == envelope.stream {
                slot = previous.slot
            } else {
                let hash = envelope.stream.hashValue
                if let found = working.position(of: envelope.stream, hash: hash) {
                    slot = found
                } else {
                    // Moved out of the cache while the batch changes it, so evolving it never copies its arrays.
                    slot = working.add(envelope.stream, hash: hash, try takeState(of: envelope.stream, hash: hash, at: index))
                }
            }
            previous = (envelope.stream, slot)
            let requestNumber = requests.count
            if let rejection = decide(
                envelope, against: &working[slot], fingerprint: fingerprint, round: round,
                into: &requests, decided: &requestEvents)
            {
                outcomes[index] = .rejected(stream: envelope.stream, rejection)
                if working[slot].cached, !checked.contains(envelope.stream) { cachedRejections.append((index, envelope.stream)) }
            } else {
                if let id = envelope.commandId { idsInBatch[envelope.stream, default: [:]][id] = requestNumber }
                requestOwners.append(index)
            }
        }

        // A stream found behind the log has every command of this round decided again in the next,
        // against its state reloaded from the log: its rejections are withdrawn, its requests not sent.
        let stale = try staleStreams(Set(cachedRejections.map(\.stream)), working: working, checked: &checked)
        var retry: [Int] = []
        for (index, stream) in cachedRejections where stale.contains(stream) {
            outcomes[index] = Self.undecided
            retry.append(index)
        }
        for stream in stale { working.remove(stream) }
        let sent = stale.isEmpty ? Array(requests.indices) : requests.indices.filter { !stale.contains(requests[$0].stream) }
        if sent.count < requests.count {
            for offset in requests.indices where stale.contains(requests[offset].stream) { retry.append(requestOwners[offset]) }
        }

        let results = sent.isEmpty ? [] : try append(sent.count == requests.count ? requests : sent.map { requests[$0] })
        var movedStreams: Set<String> = []
        for (offset, result) in zip(sent, results) {
            let index = requestOwners[offset]
            let envelope = batch[index]
            switch result {
            case .appended(let receipt):
                outcomes[index] = .accepted(Acceptance(stream: envelope.stream, receipt: receipt, duplicate: false, events: requestEvents[offset]))
            case .duplicate(let receipt):
                // Another writer stored the id meanwhile.
                outcomes[index] = Self.retry(
                    envelope, id: envelope.commandId ?? "", fingerprint: requests[offset].commandFingerprint, receipt: receipt)
                movedStreams.insert(envelope.stream)
            case .conflict(let actual):
                movedStreams.insert(envelope.stream)
                if envelope.expectedVersion != nil || finalAttempt {
                    outcomes[index] = .rejected(stream: envelope.stream, Self.versionConflict(envelope, actual: actual))
                } else {
                    retry.append(index)
                }
            }
        }
        for twin in twins {
            let owner = requestOwners[twin.request]
            switch outcomes[owner] {
            case .accepted(let acceptance):
                outcomes[twin.index] = .accepted(Acceptance(stream: acceptance.stream, receipt: acceptance.receipt, duplicate: true, events: []))
            default:
                // Its twin was not written: decide it again, after its twin, in the next round.
                retry.append(twin.index)
            }
        }
        for conflict in conflicts {
            let envelope = batch[conflict.index]
            switch outcomes[requestOwners[conflict.request]] {
            case .accepted(let acceptance):
                outcomes[conflict.index] = .rejected(
                    stream: envelope.stream,
                    Self.idempotencyConflict(envelope, id: envelope.commandId ?? "", earlier: acceptance.receipt))
            default:
                // The command that took the id was not written: this one may be the first to use it.
                retry.append(conflict.index)
            }
        }
        working.drain { stream, hash, state in
            if movedStreams.isEmpty || !movedStreams.contains(stream) { cache.put((state.state, state.version), for: stream, hash: hash) }
        }
        // Stale streams are out of the cache already: taken out for this round, never put back.
        for stream in movedStreams { cache.remove(stream) }
        return retry.sorted()
    }
}
