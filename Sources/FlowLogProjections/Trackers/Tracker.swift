import Deciding
public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem

/// One analytics vendor: the messages it takes for an event (its mapping and envelope, pure), how
/// its requests are put together, and its limits.
public protocol AnalyticsService: Sendable {
    var name: String { get }
    var limits: RequestLimits { get }
    /// The event's messages, in order; every kind gives at least one (the derived default).
    func messages(for tracked: TrackedEvent) -> [TrackerMessage]
    /// The body of one request of `messages` (of one client where `limits.oneClientPerRequest`).
    func body(of messages: ArraySlice<TrackerMessage>, sentAt: Timestamp) -> [UInt8]
    /// A message as one line of the tracker's NDJSON file.
    func fileLine(for message: TrackerMessage) -> [UInt8]
}

/// What one request of a vendor may hold.
public struct RequestLimits: Equatable, Sendable {
    /// A message larger than this is refused by the vendor: it goes to the dead letters instead.
    public var messageBytes: Int
    public var requestBytes: Int
    public var count: Int
    /// GA4 takes one `client_id` a request.
    public var oneClientPerRequest: Bool

    public init(messageBytes: Int, requestBytes: Int, count: Int, oneClientPerRequest: Bool) {
        (self.messageBytes, self.requestBytes, self.count, self.oneClientPerRequest) = (messageBytes, requestBytes, count, oneClientPerRequest)
    }
}

/// One message of one event, ready to send: the vendor's JSON and what delivery needs to know.
public struct TrackerMessage: Equatable, Sendable {
    /// The event's global position: the checkpoint moves past it once all its messages are done.
    public let position: Int
    /// Stable across retries and rebuilds: the event id, with `-2`, `-3`… for an event's later messages.
    public let id: String
    /// The stream: Segment's `anonymousId`, GA4's `client_id`.
    public let client: String
    public let timestampMicros: Int64
    public let bytes: [UInt8]

    public init(position: Int, id: String, client: String, timestampMicros: Int64, bytes: [UInt8]) {
        (self.position, self.id, self.client, self.timestampMicros, self.bytes) = (position, id, client, timestampMicros, bytes)
    }

    static func id(_ eventId: EventID, _ index: Int) -> String { index == 0 ? eventId.description : "\(eventId)-\(index + 1)" }
}

/// Where a tracker's messages go.
public protocol TrackerSink: AnyObject {
    /// Delivers `messages` in order and returns once each is acknowledged or dead-lettered. After
    /// each step it calls `done` with the last position whose messages are all handled, so that a
    /// vendor that cannot deduplicate (GA4) has its checkpoint moved request by request.
    func deliver(_ messages: [TrackerMessage], of service: any AnalyticsService, done: (Int) throws -> Void) throws
}

/// Delivers a service's messages for each event, at least once: the checkpoint moves only after
/// the sink confirmed delivery, so a crash in between sends those messages again, with the same ids.
/// A rebuild, though, is no crash: it keeps the acknowledged mark, and what the collector already
/// confirmed is not sent again unless asked (`reset(resending: true)`).
public final class TrackerProjector: Projector {
    public let service: any AnalyticsService
    public let sink: any TrackerSink
    private let log: any EventLog & CheckpointStore
    /// The streams' analytics state as of the last event handled; rebuilt from the log on demand.
    /// Two generations of `statesPerGeneration` streams each: a stream met again moves to the
    /// current one, so the sessions still going stay while those that ended are let go. Dropping
    /// every state at 10,000 streams instead made the sessions open at that moment (a thousand, in
    /// a log of app sessions) each read their stream again: two round trips each on PostgreSQL;
    /// and a rule that dropped them only when a stream had to be read let a log of sessions whose
    /// first events are all a tracker meets keep every state.
    private var states: [String: StreamAnalyticsState] = [:]
    private var olderStates: [String: StreamAnalyticsState] = [:]
    /// Bounded: a log of millions of sessions would otherwise keep each one's cart.
    static let statesPerGeneration = 5_000
    /// The part of the streams this projector delivers, when the tracker is split among runners:
    /// it reads every event and moves its checkpoint past them all, but sends only its streams'.
    public let partition: ProjectorPartition?
    public let name: String

    public init(service: any AnalyticsService, sink: any TrackerSink, log: any EventLog & CheckpointStore, partition: ProjectorPartition? = nil) {
        (self.service, self.sink, self.log, self.partition) = (service, sink, log, partition)
        name = partition.map { $0.name(of: Self.name(of: service)) } ?? Self.name(of: service)
    }

    /// The whole tracker's name, `tracker.NAME`, whose parts are named after it.
    public static func name(of service: any AnalyticsService) -> String { "tracker." + service.name }

    public func checkpoint() throws -> Int { try log.checkpoint(of: name) }

    /// Messages of events at or below the acknowledged mark are not sent again after a rebuild; their
    /// events still move the streams' state, which later messages read.
    public func project(_ events: [RecordedEvent]) throws {
        let acknowledged = try log.acknowledgedPosition(of: name)
        var messages: [TrackerMessage] = []
        // The log's own streams (the erasure audit trail) are nobody's session: never sent.
        for record in events where !SystemStreams.isReserved(record.stream) && partition?.contains(stream: record.stream) != false {
            let before = try state(of: record)
            if record.position > acknowledged { messages += service.messages(for: TrackedEvent(record: record, before: before)) }
            var after = before
            after.apply(record)
            states[record.stream] = after
            if states.count >= Self.statesPerGeneration {
                swap(&states, &olderStates)
                states.removeAll(keepingCapacity: true)
            }
        }
        let name = self.name
        do {
            try sink.deliver(messages, of: service) { position in try log.setCheckpoint(position, of: name) }
        } catch {
            // The checkpoint may stand anywhere in this batch now: the states are folded afresh next time.
            forgetStates()
            throw error
        }
        if let last = events.last { try log.setCheckpoint(last.position, of: name) }
    }

    /// The stream's state just before `record`: cached, or folded from the stream's earlier events.
    private func state(of record: RecordedEvent) throws -> StreamAnalyticsState {
        if let cached = states[record.stream] { return cached }
        // Taken out: the state after the record goes to the current generation.
        if let older = olderStates.removeValue(forKey: record.stream) { return older }
        // A stream's first event has nothing before it: a new session's costs no read of its
        // stream (on PostgreSQL, two round trips for each of a million sessions).
        if record.version == 1 { return StreamAnalyticsState() }
        return try StreamAnalyticsState.before(record, in: log)
    }

    /// How many streams' states are held (at most two generations').
    var heldStates: Int { states.count + olderStates.count }

    private func forgetStates() {
        states.removeAll()
        olderStates.removeAll()
    }

    /// Starts again from position 1 without sending the collector what it acknowledged already.
    public func reset() throws { try reset(resending: false) }

    /// With `resending`, the acknowledged mark is forgotten too, and every message is sent again.
    public func reset(resending: Bool) throws {
        forgetStates()
        try log.rewindTracker(name, resending: resending)
    }
}

/// Appends each message as a line to a file, and syncs it before returning.
public final class NDJSONFileSink: TrackerSink {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func deliver(_ messages: [TrackerMessage], of service: any AnalyticsService, done: (Int) throws -> Void) throws {
        guard !messages.isEmpty else { return }
        let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw FlowLogError.input("Cannot write \(path): \(String(cString: strerror(errno))).") }
        defer { close(descriptor) }
        // The parts of a split tracker write the one file from several processes: a whole batch at
        // a time, and a torn line is cut only while nobody else writes.
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FlowLogError.input("Cannot lock \(path): \(String(cString: strerror(errno))).") }
        }
        try dropTornLine(descriptor)
        var bytes: [UInt8] = []
        for message in messages {
            bytes += service.fileLine(for: message)
            bytes.append(0x0A)
        }
        try FileDescriptorOutput(fileDescriptor: descriptor).write(bytes)
        guard fsync(descriptor) == 0 else { throw FlowLogError.input("Cannot sync \(path): \(String(cString: strerror(errno))).") }
    }

    /// A process killed in the middle of a write leaves half a line at the end; its messages were not
    /// checkpointed and come again, so the half line is cut off rather than left to break readers.
    private func dropTornLine(_ descriptor: Int32) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return }
        var end = Int(info.st_size)
        var byte: UInt8 = 0
        while end > 0, pread(descriptor, &byte, 1, off_t(end - 1)) == 1, byte != 0x0A { end -= 1 }
        if end != Int(info.st_size), ftruncate(descriptor, off_t(end)) != 0 {
            throw FlowLogError.input("Cannot repair the end of \(path): \(String(cString: strerror(errno))).")
        }
    }
}
