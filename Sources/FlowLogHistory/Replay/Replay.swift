public import FlowLogStore

/// Folds events from a source, stream by stream, handing each step's states to the caller.
public struct Replayer {
    public struct Step {
        public let record: RecordedEvent
        public let before: LogDecider.State
        public let after: LogDecider.State
    }

    public let source: any ReplaySource

    public init(source: any ReplaySource) {
        self.source = source
    }

    /// Replays events `from...to` (of `stream`, or of every stream); each stream starts from its state
    /// just before `from` (from a snapshot where the source has them). Returns the final states.
    @discardableResult
    public func run(
        stream: String?, from: Int = 1, to: Int? = nil, keepBefore: Bool = true,
        _ body: (Step) throws -> Bool = { _ in true }
    ) throws -> [String: (state: LogDecider.State, version: Int)] {
        var states: [String: StreamFold] = [:]
        try source.forEachEvent(stream: stream, from: from, to: to) { record in
            var current =
                try states.removeValue(forKey: record.stream)
                ?? StreamFold(
                    from > 1 ? try source.state(ofStream: record.stream, before: from) : LogDecider.initialState, version: record.version - 1)
            let before = keepBefore ? current.state.value : LogDecider.initialState
            current.fold(record)
            let keepGoing = try body(Step(record: record, before: before, after: current.state.value))
            states[record.stream] = current
            return keepGoing
        }
        return states.mapValues(\.value)
    }
}
