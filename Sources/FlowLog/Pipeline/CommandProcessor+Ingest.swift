public import Deciding
public import FlowLogBasics
public import FlowLogStore
import Synchronization

/// Recorded events from elsewhere (a device's own log: `POST /streams/{stream}/events`, `push`,
/// `pull`), appended through the log's one writer.
///
/// Events are facts: they are stored as the device decided them (ids, versions, times, actors,
/// correlation and causation), never decided again. The log only checks that they continue the
/// stream where it stands, and folds them with this build's reducers for what it keeps beside them
/// (fingerprints, heads, snapshots, kept rows), as `import` does. A retry after a lost answer
/// sends events the log holds already: each one found at its stream and version with the same
/// event id is a duplicate, acknowledged and never stored twice.
extension CommandProcessor {
    /// What an ingest stored: the events appended now (nil when all were held already) and how
    /// many of those sent the log held already, with the stream's version afterwards.
    public struct Ingested: Equatable, Sendable {
        public var stream: String
        public var appended: CommandReceipt?
        public var duplicates: Int
        public var version: Int
    }

    /// Why an ingest stored nothing. The request was sound; the log's state is in the way.
    public enum IngestRefusal: Error, Equatable, CustomStringConvertible {
        /// The events do not continue the stream: a gap, or another event at one of their versions.
        case conflict(stream: String, currentVersion: Int, detail: String)
        /// The stream was forgotten here (its pseudonym is in the erasure audit trail).
        case gone(stream: String)
        /// The log's schema cannot hold one of the events until `flowlog upgrade`.
        case upgradeRequired(stream: String, Rejection)

        /// The stream refused.
        public var stream: String {
            switch self {
            case .conflict(let stream, _, _), .gone(let stream): stream
            case .upgradeRequired(let stream, _): stream
            }
        }

        public var description: String {
            switch self {
            case .conflict(let stream, let current, let detail):
                "\(detail); stream \(stream) is at version \(current) here. Nothing was stored."
            case .gone(let stream):
                "Stream \(stream) was forgotten on this log (an erasure request); its events are not stored again. Forget it on the device too."
            case .upgradeRequired(_, let rejection):
                rejection.message
            }
        }
    }

    /// Appends `events` (one stream's, in version order, contiguous) in one transaction, or none
    /// of them. Versions the stream holds already must hold the same event ids (duplicates);
    /// the first one it does not hold must be its next. `erased`, when given, refuses a stream
    /// forgotten before (read again from the log's audit trail first).
    public func ingest(_ events: [RecordedEvent], stream: String, erased: ErasedStreams? = nil) throws -> Ingested {
        try ingest(runs: [(stream, events)], erased: erased)[0].get()
    }

    /// One stream's events of a request: in version order, contiguous.
    public typealias IngestRun = (stream: String, events: [RecordedEvent])

    /// Appends many streams' runs in one transaction (one durable commit for all of them), each
    /// stream by `ingest`'s rules and answered on its own: a stream refused leaves the others be.
    /// Each stream appears once. Throws only what the log throws.
    public func ingest(runs: [IngestRun], erased: ErasedStreams? = nil) throws -> [Result<Ingested, IngestRefusal>] {
        precondition(runs.allSatisfy { run in run.events.allSatisfy { $0.stream == run.stream } }, "a run is one stream's events")
        if let erased { try erased.refresh(from: log) }
        if settings == nil { settings = try log.settings() }
        var answers = [Result<Ingested, IngestRefusal>?](repeating: nil, count: runs.count)
        var pending = Array(runs.indices)
        // Another writer of the same log (PostgreSQL) may move a stream between the read and the
        // append; the append's version check notices, and those streams are weighed again.
        for attempt in 1...4 where !pending.isEmpty {
            var prepared: [(index: Int, held: Int, state: (state: LogDecider.State, version: Int))] = []
            for index in pending {
                do {
                    let (held, current) = try weigh(runs[index], erased: erased)
                    if held == runs[index].events.count {
                        answers[index] = .success(Ingested(stream: runs[index].stream, appended: nil, duplicates: held, version: current.version))
                    } else {
                        prepared.append((index, held, current))
                    }
                } catch let refusal as IngestRefusal {
                    answers[index] = .failure(refusal)
                }
            }
            prepared = try withoutTakenEventIds(prepared, runs: runs, answers: &answers)
            var requests: [AppendRequest] = []
            for item in prepared.indices {
                requests.append(
                    appendRequest(
                        runs[prepared[item].index].events.dropFirst(prepared[item].held),
                        stream: runs[prepared[item].index].stream, folding: &prepared[item].state))
            }
            pending = []
            for (item, result) in zip(prepared, requests.isEmpty ? [] : try log.append(requests)) {
                let stream = runs[item.index].stream
                if case .appended(let receipt) = result {
                    cache.put(item.state, for: stream)
                    answers[item.index] = .success(Ingested(stream: stream, appended: receipt, duplicates: item.held, version: receipt.version))
                } else {
                    cache.remove(stream)
                    pending.append(item.index)
                }
            }
            if !pending.isEmpty, attempt < 4 { Self.backOff(attempt) }
        }
        for index in pending {
            answers[index] = .failure(
                .conflict(
                    stream: runs[index].stream, currentVersion: try log.version(of: runs[index].stream),
                    detail: "Other writers kept moving the stream"))
        }
        return answers.map { $0! }
    }

    /// The checks of one run against its stream as it stands: how many of its events the stream
    /// holds already (duplicates) and the stream's state; throws the run's refusal.
    private func weigh(_ run: IngestRun, erased: ErasedStreams?) throws -> (held: Int, state: (state: LogDecider.State, version: Int)) {
        if let erased, erased.contains(run.stream) { throw IngestRefusal.gone(stream: run.stream) }
        for event in run.events where !(settings ?? .newLog()).admits(event.event) {
            if let fresh = try? log.settings() { settings = fresh }
            if !(settings ?? .newLog()).admits(event.event) {
                throw IngestRefusal.upgradeRequired(stream: run.stream, (settings ?? .newLog()).refusal(of: event.event, location: log.location))
            }
        }
        let current = try state(of: run.stream)
        let held = try heldPrefix(of: run.events, stream: run.stream, version: current.version)
        if let first = run.events.dropFirst(held).first, first.version != current.version + 1 {
            throw IngestRefusal.conflict(
                stream: run.stream, currentVersion: current.version,
                detail: "The first event not held here is version \(first.version), but the stream's next is \(current.version + 1)")
        }
        return (held, current)
    }

    /// `prepared` without the runs that carry an event id stored anywhere in the log, or twice in
    /// the request: event ids are unique across the log, and one stored elsewhere is not a retry.
    private func withoutTakenEventIds(
        _ prepared: [(index: Int, held: Int, state: (state: LogDecider.State, version: Int))], runs: [IngestRun],
        answers: inout [Result<Ingested, IngestRefusal>?]
    ) throws -> [(index: Int, held: Int, state: (state: LogDecider.State, version: Int))] {
        let fresh = prepared.flatMap { runs[$0.index].events.dropFirst($0.held) }
        let taken = try log.capabilities.eventIds?.positions(ofEventIds: fresh.map(\.eventId)) ?? [:]
        var seen = Set<EventID>()
        return prepared.filter { item in
            let run = runs[item.index]
            for event in run.events.dropFirst(item.held) {
                let detail: String? =
                    if let position = taken[event.eventId] {
                        "The event id \(event.eventId) of version \(event.version) is already in the log, at position \(position) (another stream's or version's)"
                    } else if !seen.insert(event.eventId).inserted {
                        "The event id \(event.eventId) of version \(event.version) comes twice in the request"
                    } else { nil }
                if let detail {
                    answers[item.index] = .failure(.conflict(stream: run.stream, currentVersion: item.state.version, detail: detail))
                    return false
                }
            }
            return true
        }
    }

    /// Where a stream stands for a device about to send it: its version and the id of its last
    /// event (so the device can tell whether the log holds its own events or another's), read on
    /// the writer's thread. Throws `gone` for a stream forgotten here.
    public func ingestTip(of stream: String, erased: ErasedStreams? = nil) throws -> (version: Int, eventId: EventID?) {
        guard let tip = try ingestTips(of: [stream], erased: erased)[0] else { throw IngestRefusal.gone(stream: stream) }
        return tip
    }

    /// `ingestTip` for each of `streams` (nil: forgotten here), the audit trail read once for all.
    public func ingestTips(of streams: [String], erased: ErasedStreams? = nil) throws -> [(version: Int, eventId: EventID?)?] {
        try erased?.refresh(from: log)
        return try streams.map { stream in
            if let erased, erased.contains(stream) { return nil }
            let version = try log.version(of: stream)
            return (version, version > 0 ? try log.event(inStream: stream, version: version)?.eventId : nil)
        }
    }

    /// How many of `events`, from the first, the stream holds already at their versions with the
    /// same event ids; throws a conflict at a version that holds another event.
    private func heldPrefix(of events: [RecordedEvent], stream: String, version: Int) throws -> Int {
        var held = 0
        for event in events where event.version <= version {
            guard let stored = try log.event(inStream: stream, version: event.version) else {
                throw IngestRefusal.conflict(stream: stream, currentVersion: version, detail: "Version \(event.version) cannot be read here")
            }
            guard stored.eventId == event.eventId else {
                throw IngestRefusal.conflict(
                    stream: stream, currentVersion: version,
                    detail: "Version \(event.version) holds another event here (\(stored.eventId), not \(event.eventId))")
            }
            held += 1
        }
        return held
    }

    /// The request that appends `events` after `current`, which it folds forward: fingerprints,
    /// kept rows and the state where the log keeps one, as a decided command's request has.
    private func appendRequest(
        _ events: ArraySlice<RecordedEvent>, stream: String,
        folding current: inout (state: LogDecider.State, version: Int)
    ) -> AppendRequest {
        var fingerprints: [UInt64] = []
        var keptRows: [KeptRow] = []
        var scratch = BinaryWriter(capacity: 512)
        fingerprints.reserveCapacity(events.count)
        let before = current.version
        for event in events {
            LogDecider.evolve(&current.state, event.event)
            fingerprints.append(LogDecider.fingerprint(current.state, scratch: &scratch))
            if let row = KeptRow(keptBy: event.event, after: current.state) { keptRows.append(row) }
        }
        current.version += events.count
        let keeps =
            before / AppendRules.headInterval != current.version / AppendRules.headInterval
            || snapshotInterval.map { $0 > 0 && before / $0 != current.version / $0 } ?? true
        let newEvents = events.map { event in
            NewEvent(
                eventId: event.eventId, timestamp: event.timestamp, actor: event.actor,
                correlationId: event.correlationId, causationId: event.causationId, traceContext: event.traceContext, event: event.event)
        }
        return AppendRequest(
            stream: stream, expectedVersion: before, commandId: nil, events: newEvents,
            fingerprints: fingerprints, stateAfter: keeps ? stateToKeep(current.state) : nil, keptRows: keptRows)
    }
}

/// The streams forgotten on a log, as keyed pseudonyms (`ErasureAudit.pseudonym`, HMAC-SHA256
/// under the operator's key) read from its erasure audit trail: how an ingest knows a stream
/// was forgotten without the log keeping its id. Only the writer's thread uses one; its state sits
/// in a `Mutex` all the same, so that the compiler checks that the server may share it.
public final class ErasedStreams: Sendable {
    let key: [UInt8]

    private struct Trail {
        var pseudonyms: Set<String> = []
        /// The audit trail's version read so far: each refresh reads only the erasures after it.
        var readThrough = 0
    }

    private let trail = Mutex(Trail())

    public init(key: [UInt8]) { self.key = key }

    /// Reads the audit events recorded since the last refresh (by this process or another). The
    /// log is read without the lock, which is taken only to read and add to what is known.
    func refresh(from log: any EventLog) throws {
        let version = try log.version(of: SystemStreams.erasures)
        // A log whose audit trail shrank (a copy put in its place) is read again from the start.
        let known = trail.withLock { trail in
            if version < trail.readThrough { trail = Trail() }
            return trail.readThrough
        }
        guard version > known else { return }
        var found: [String] = []
        do {
            try log.forEachEvent(inStream: SystemStreams.erasures, throughPosition: nil) { record in
                if record.version > known, case .streamForgotten(let forgotten)? = record.event.systemEvent, let pseudonym = forgotten.pseudonym {
                    found.append(pseudonym)
                }
                return true
            }
        } catch {
            // What a read that failed part way found counts too; only a whole read moves `readThrough`.
            trail.withLock { $0.pseudonyms.formUnion(found) }
            throw error
        }
        trail.withLock { trail in
            trail.pseudonyms.formUnion(found)
            trail.readThrough = version
        }
    }

    public func contains(_ stream: String) -> Bool {
        let pseudonym = ErasureAudit.pseudonym(of: stream, key: key)
        return trail.withLock { $0.pseudonyms.contains(pseudonym) }
    }
}
