#if Network
    import FlowLogMemory
    import FlowLogBasics
    import FlowLogStore

    /// What the read routes ask of a log: the server's own (`StoreView`), or a dropped file held in
    /// memory (FlowLogMemory's `ReadOnlyMemoryLog`, `SessionFile`). Calls block; the routes make them
    /// on reader threads.
    protocol InspectedLog: AnyObject, Sendable {
        func lastPosition() throws -> Int
        /// Each stream's name and version in byte order of the names, from the first at or after
        /// `start`, until `body` returns `false` (`EventLog.forEachStream`).
        func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws
        func version(of stream: String) throws -> Int
        func event(inStream stream: String, version: Int) throws -> RecordedEvent?
        /// The stream's state and version right after global position `position` (or now).
        func state(ofStream stream: String, throughPosition position: Int?) throws -> (state: LogDecider.State, version: Int)
    }

    extension InspectedLog {
        /// One stream of `GET /streams` (StreamSummary in docs/openapi.json).
        func summary(of stream: String, version: Int) throws -> StreamListing {
            guard let first = try event(inStream: stream, version: 1), let last = try event(inStream: stream, version: version) else {
                throw APIError.unavailable(
                    "The stream index lacks version 1 or \(version) of stream \(stream): the log is damaged. Run `\(ProgramName.current) verify` for the details."
                )
            }
            return StreamListing(
                stream: stream, version: version, firstPosition: first.position, lastPosition: last.position, lastTimestamp: last.timestamp)
        }

        /// The state right after `version` (0: the initial state).
        func state(ofStream stream: String, afterVersion version: Int) throws -> LogDecider.State {
            guard version > 0 else { return LogDecider.initialState }
            guard let event = try event(inStream: stream, version: version) else {
                throw APIError.notFound("versionNotFound", "Stream \(stream) has no version \(version).")
            }
            return try state(ofStream: stream, throughPosition: event.position).state
        }
    }

    /// The server's log, read by the reader threads: each call is one read transaction.
    final class StoreView: InspectedLog, Sendable {
        private let handle: LogHandle
        private var log: any LogStore { handle.log }
        init(_ handle: LogHandle) { self.handle = handle }

        func lastPosition() throws -> Int { try log.lastPosition() }
        func version(of stream: String) throws -> Int { try log.version(of: stream) }
        func event(inStream stream: String, version: Int) throws -> RecordedEvent? { try log.event(inStream: stream, version: version) }
        func state(ofStream stream: String, throughPosition position: Int?) throws -> (state: LogDecider.State, version: Int) {
            try log.state(ofStream: stream, throughPosition: position)
        }

        func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws { try log.forEachStream(from: start, body) }
    }

    /// A scratch session: FlowLogMemory's read-only log answers every read as it is.
    extension ReadOnlyMemoryLog: InspectedLog {}
#endif
