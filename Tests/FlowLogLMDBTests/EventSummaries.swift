import FlowLogLMDB

extension LMDBEventLog {
    /// The log's events without their ids and timestamps, one line each: two logs written alike
    /// compare equal even where a batch decided again drew new ids.
    func eventSummaries() throws -> [String] {
        var events: [String] = []
        try forEachEvent(from: 1, through: nil) { event in
            events.append("\(event.position) \(event.stream) \(event.version) \(event.event)")
            return true
        }
        return events
    }
}
