import FlowLogStore

extension CommandProcessor {
    /// A stream's state as a batch changes it, whether the batch holds a request for it yet, and
    /// whether it came from the cache (so may be behind the log: CommandProcessor+Staleness).
    struct WorkingStream {
        var state: LogDecider.State
        var version: Int
        var requested = false
        let cached: Bool
        /// The version before this round's commands: the one the log is checked against.
        let loadedVersion: Int

        init(_ loaded: (state: LogDecider.State, version: Int), cached: Bool) {
            state = loaded.state
            version = loaded.version
            loadedVersion = loaded.version
            self.cached = cached
        }
    }

    /// The streams a round decides against: their states in an array, in the order the round met
    /// them, found by name through a table of positions.
    ///
    /// A `Dictionary` of states cost a stream three lookups of its name (a miss, the insertion, the
    /// index of what was inserted) and, at the round's end, a copy of each state on its way back to
    /// the cache (every array and string it holds retained, then released with the table); one
    /// command into each of a million new sessions meets a million streams. Here a stream costs a
    /// miss and an insertion, and its state moves back to the cache (`drain`).
    struct WorkingStreams {
        private var positions: [String: Int] = [:]
        private var names: [String] = []
        private var states: [WorkingStream] = []
        /// Streams taken out of the round (`remove`): skipped by `drain`.
        private var removed: Set<Int> = []

        init(capacity: Int) {
            positions.reserveCapacity(capacity)
            names.reserveCapacity(capacity)
            states.reserveCapacity(capacity)
        }

        /// Where the stream's state is, if the round holds it.
        func position(of stream: String) -> Int? { positions[stream] }

        /// Adds a stream the round does not hold yet; returns where its state is.
        mutating func add(_ stream: String, _ state: WorkingStream) -> Int {
            let position = states.count
            positions[stream] = position
            names.append(stream)
            states.append(state)
            return position
        }

        subscript(position: Int) -> WorkingStream {
            get { states[position] }
            _modify { yield &states[position] }
        }

        subscript(stream: String) -> WorkingStream? { positions[stream].map { states[$0] } }

        /// Takes the stream out of the round: its state is not put back.
        mutating func remove(_ stream: String) {
            if let position = positions.removeValue(forKey: stream) { removed.insert(position) }
        }

        /// Hands each stream still held, and its state, to `body`, last met first, moving the states
        /// out; the round holds nothing afterwards.
        mutating func drain(_ body: (String, WorkingStream) -> Void) {
            positions = [:]
            while let state = states.popLast() {
                let name = names.removeLast()
                if removed.isEmpty || !removed.contains(states.count) { body(name, state) }
            }
            removed = []
        }
    }
}
