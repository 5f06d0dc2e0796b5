import FlowLogStore

/// A stream's history for bisecting: states by version, from the log's snapshots or from a file's events.
struct StreamHistory {
    let versions: Int
    private let stream: String
    private let log: (any LogStore)?
    private let events: [RecordedEvent]

    init(stream: String, source: any ReplaySource, log: (any LogStore)?) throws {
        self.stream = stream
        self.log = log
        if let log {
            versions = try log.version(of: stream)
            events = []
        } else {
            var loaded: [RecordedEvent] = []
            try source.forEachEvent(stream: stream, from: 1, to: nil) {
                loaded.append($0)
                return true
            }
            events = loaded
            versions = loaded.count
        }
    }

    func event(version: Int) throws -> RecordedEvent {
        if let log {
            guard let event = try log.event(inStream: stream, version: version) else {
                throw CLIFailure("Stream \(stream) has no version \(version).", .dataError)
            }
            return event
        }
        return events[version - 1]
    }

    func state(after version: Int) throws -> LogDecider.State {
        guard version > 0 else { return LogDecider.initialState }
        if let log { return try log.state(ofStream: stream, throughPosition: try event(version: version).position).state }
        var fold = StreamFold.initial
        for record in events[0..<version] { fold.fold(record) }
        return fold.state.value
    }
}
