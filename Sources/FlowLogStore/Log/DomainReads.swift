import Deciding

/// The domain's values where storage hands back its opaque `StreamState`s and `KeptRow`s: what
/// the command line, the server and the tests read.
extension ReadModelStore {
    /// A stream's state from the read model, when it is current; `nil` otherwise.
    public func currentReadModelState(of stream: String) throws -> (state: LogDecider.State, version: Int)? {
        try readModelState(of: stream).map { ($0.state.value, $0.version) }
    }

    /// Orders of all streams (or of one) in the order they were placed.
    public func readModelOrders(stream: String?) throws -> [(position: Int, stream: String, order: LogDecider.KeptRow)] {
        try readModelRows(stream: stream).map { ($0.position, $0.stream, $0.row.value) }
    }
}

extension StreamBatchReading {
    /// Each stream's current state and version, as `EventLog.state(ofStream:)` gives it.
    public func states(ofStreams streams: [String]) throws -> [String: (state: LogDecider.State, version: Int)] {
        try streamStates(ofStreams: streams).mapValues { ($0.state.value, $0.version) }
    }
}
