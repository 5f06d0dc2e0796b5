import FlowDomain

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
        case upgradeRequired(Rejection)

        public var description: String {
            switch self {
            case .conflict(let stream, let current, let detail):
                "\(detail); stream \(stream) is at version \(current) here. Nothing was stored."
            case .gone(let stream):
                "Stream \(stream) was forgotten on this log (an erasure request); its events are not stored again. Forget it on the device too."
            case .upgradeRequired(let rejection):
                rejection.message
            }
        }
    }

    /// Appends `events` (one stream's, in version order, contiguous) in one transaction, or none
    /// of them. Versions the stream holds already must hold the same event ids (duplicates);
    /// the first one it does not hold must be its next. `erased`, when given, refuses a stream
    /// forgotten before (read again from the log's audit trail first).
    public func ingest(_ events: [RecordedEvent], stream: String, erased: ErasedStreams? = nil) throws -> Ingested {
        precondition(events.allSatisfy { $0.stream == stream }, "an ingest is one stream's events")
        if let erased {
            try erased.refresh(from: log)
            if erased.contains(stream) { throw IngestRefusal.gone(stream: stream) }
        }
        if settings == nil { settings = try log.settings() }
        for event in events where !(settings ?? .newLog()).admits(event.event) {
            if let fresh = try? log.settings() { settings = fresh }
            if !(settings ?? .newLog()).admits(event.event) {
                throw IngestRefusal.upgradeRequired((settings ?? .newLog()).refusal(of: event.event, location: log.location))
            }
        }
        // Another writer of the same log (PostgreSQL) may move the stream between the read and the
        // append; the append's version check notices, and the events are weighed again.
        for attempt in 1...4 {
            var current = try state(of: stream)
            let held = try heldPrefix(of: events, stream: stream, version: current.version)
            let fresh = events.dropFirst(held)
            guard let first = fresh.first else {
                return Ingested(stream: stream, appended: nil, duplicates: held, version: current.version)
            }
            guard first.version == current.version + 1 else {
                throw IngestRefusal.conflict(stream: stream, currentVersion: current.version,
                                             detail: "The first event not held here is version \(first.version), but the stream's next is \(current.version + 1)")
            }
            if let lookup = log.capabilities.eventIds {
                // Event ids are unique across the log: one already stored elsewhere is not a retry.
                let taken = try lookup.positions(ofEventIds: fresh.map(\.eventId))
                if let event = fresh.first(where: { taken[$0.eventId] != nil }) {
                    throw IngestRefusal.conflict(stream: stream, currentVersion: current.version,
                                                 detail: "The event id \(event.eventId) of version \(event.version) is already in the log, at position \(taken[event.eventId]!) (another stream's or version's)")
                }
            }
            let request = appendRequest(fresh, stream: stream, folding: &current)
            switch try log.append([request])[0] {
            case .appended(let receipt):
                cache.put(current, for: stream)
                return Ingested(stream: stream, appended: receipt, duplicates: held, version: receipt.version)
            case .duplicate, .conflict:
                cache.remove(stream)
                if attempt < 4 { Self.backOff(attempt) }
            }
        }
        let version = try log.version(of: stream)
        throw IngestRefusal.conflict(stream: stream, currentVersion: version, detail: "Other writers kept moving the stream")
    }

    /// Where a stream stands for a device about to send it: its version and the id of its last
    /// event (so the device can tell whether the log holds its own events or another's), read on
    /// the writer's thread. Throws `gone` for a stream forgotten here.
    public func ingestTip(of stream: String, erased: ErasedStreams? = nil) throws -> (version: Int, eventId: EventID?) {
        if let erased {
            try erased.refresh(from: log)
            if erased.contains(stream) { throw IngestRefusal.gone(stream: stream) }
        }
        let version = try log.version(of: stream)
        return (version, version > 0 ? try log.event(inStream: stream, version: version)?.eventId : nil)
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
                throw IngestRefusal.conflict(stream: stream, currentVersion: version,
                                             detail: "Version \(event.version) holds another event here (\(stored.eventId), not \(event.eventId))")
            }
            held += 1
        }
        return held
    }

    /// The request that appends `events` after `current`, which it folds forward: fingerprints,
    /// kept rows and the state where the log keeps one, as a decided command's request has.
    private func appendRequest(_ events: ArraySlice<RecordedEvent>, stream: String,
                               folding current: inout (state: LogDecider.State, version: Int)) -> AppendRequest {
        var fingerprints: [UInt64] = []
        var keptRows: [KeptRow] = []
        var scratch = BinaryWriter(capacity: 512)
        fingerprints.reserveCapacity(events.count)
        let before = current.version
        for event in events {
            LogDecider.evolve(&current.state, event.event)
            fingerprints.append(StateCodec.fingerprint(current.state, scratch: &scratch))
            if let row = KeptRow(keptBy: event.event, after: current.state) { keptRows.append(row) }
        }
        current.version += events.count
        let keeps = before / AppendRules.headInterval != current.version / AppendRules.headInterval
            || snapshotInterval.map { $0 > 0 && before / $0 != current.version / $0 } ?? true
        let newEvents = events.map { event in
            NewEvent(eventId: event.eventId, timestamp: event.timestamp, actor: event.actor,
                     correlationId: event.correlationId, causationId: event.causationId, event: event.event)
        }
        return AppendRequest(stream: stream, expectedVersion: before, commandId: nil, events: newEvents,
                             fingerprints: fingerprints, stateAfter: keeps ? stateToKeep(current.state) : nil, keptRows: keptRows)
    }
}

/// The streams forgotten on a log, as keyed pseudonyms (`ErasureAudit.pseudonym`, HMAC-SHA256
/// under the operator's key) read from its erasure audit trail: how an ingest knows a stream
/// was forgotten without the log keeping its id. Only the writer's thread uses one.
public final class ErasedStreams: @unchecked Sendable {
    let key: [UInt8]
    private var pseudonyms: Set<String> = []
    /// The audit trail's version read so far: each refresh reads only the erasures after it.
    private var readThrough = 0

    public init(key: [UInt8]) { self.key = key }

    /// Reads the audit events recorded since the last refresh (by this process or another).
    func refresh(from log: any EventLog) throws {
        let version = try log.version(of: SystemStreams.erasures)
        // A log whose audit trail shrank (a copy put in its place) is read again from the start.
        if version < readThrough { (pseudonyms, readThrough) = ([], 0) }
        guard version > readThrough else { return }
        try log.forEachEvent(inStream: SystemStreams.erasures, throughPosition: nil) { record in
            if record.version > readThrough, case .system(.streamForgotten(let forgotten)) = record.event, let pseudonym = forgotten.pseudonym {
                pseudonyms.insert(pseudonym)
            }
            return true
        }
        readThrough = version
    }

    public func contains(_ stream: String) -> Bool {
        pseudonyms.contains(ErasureAudit.pseudonym(of: stream, key: key))
    }
}
