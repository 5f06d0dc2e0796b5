#if Network
import FlowDomain
import FlowLog

/// One stream in a list: `GET /streams` (StreamSummary in docs/openapi.json).
struct StreamSummary: Sendable {
    let stream: String
    let version: Int
    let firstPosition: Int
    let lastPosition: Int
    let lastTimestamp: Timestamp
}

/// What the read routes ask of a log: the server's own (`StoreView`), or a dropped file held in
/// memory (`SessionLog`). Calls block; the routes make them on reader threads.
protocol InspectedLog: AnyObject, Sendable {
    func lastPosition() throws -> Int
    /// Every stream's name and version, in byte order of the names.
    func streamList() throws -> [(stream: String, version: Int)]
    func version(of stream: String) throws -> Int
    func event(inStream stream: String, version: Int) throws -> RecordedEvent?
    /// The stream's state and version right after global position `position` (or now).
    func state(ofStream stream: String, throughPosition position: Int?) throws -> (state: FlowState, version: Int)
}

extension InspectedLog {
    func summary(of stream: String, version: Int) throws -> StreamSummary {
        guard let first = try event(inStream: stream, version: 1), let last = try event(inStream: stream, version: version) else {
            throw APIError.unavailable("The stream index lacks version 1 or \(version) of stream \(stream): the log is damaged. Run `flowlog verify` for the details.")
        }
        return StreamSummary(stream: stream, version: version, firstPosition: first.position, lastPosition: last.position, lastTimestamp: last.timestamp)
    }

    /// The state right after `version` (0: the initial state).
    func state(ofStream stream: String, afterVersion version: Int) throws -> FlowState {
        guard version > 0 else { return FlowDecider.initialState }
        guard let event = try event(inStream: stream, version: version) else {
            throw APIError.notFound("versionNotFound", "Stream \(stream) has no version \(version).")
        }
        return try state(ofStream: stream, throughPosition: event.position).state
    }
}

/// The server's log, read by the reader threads: each call is one read transaction.
final class StoreView: InspectedLog, @unchecked Sendable {
    private let handle: LogHandle
    private var log: any LogStore { handle.log }
    /// The stream list, kept while the log's last position stays where it was and no stream was
    /// forgotten (a forget removes a stream without moving the last position).
    private let cache = StreamListCache()

    init(_ handle: LogHandle) { self.handle = handle }

    func lastPosition() throws -> Int { try log.lastPosition() }
    func version(of stream: String) throws -> Int { try log.version(of: stream) }
    func event(inStream stream: String, version: Int) throws -> RecordedEvent? { try log.event(inStream: stream, version: version) }
    func state(ofStream stream: String, throughPosition position: Int?) throws -> (state: FlowState, version: Int) {
        try log.state(ofStream: stream, throughPosition: position)
    }

    func streamList() throws -> [(stream: String, version: Int)] {
        let generation = cache.generation
        let last = try log.lastPosition()
        if let cached = cache.list(at: last) { return cached }
        let list = try log.streams()
        cache.keep(list, at: last, generation: generation)
        return list
    }

    /// Drops the kept stream list: called once a forget has committed.
    func streamsForgotten() { cache.invalidate() }
}

/// The last stream list read, and the last position it was read at. `generation` counts forgets:
/// a list read while one committed is not kept, since it may hold the stream at the same position.
final class StreamListCache: @unchecked Sendable {
    private let lock = NSLockLike()
    private var position = -1
    private var streams: [(stream: String, version: Int)] = []
    private var forgets = 0

    /// Read before the log is, and handed back to `keep`.
    var generation: Int { lock.withLock { forgets } }

    func list(at position: Int) -> [(stream: String, version: Int)]? {
        lock.withLock { self.position == position ? streams : nil }
    }

    func keep(_ list: [(stream: String, version: Int)], at position: Int, generation: Int) {
        lock.withLock {
            guard generation == forgets else { return }
            self.position = position
            streams = list
        }
    }

    func invalidate() {
        lock.withLock {
            forgets += 1
            position = -1
            streams = []
        }
    }
}
#endif
