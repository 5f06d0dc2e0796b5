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
    /// command into each of a million new sessions meets a million streams. Here a stream's name is
    /// hashed once a round, by the caller: the hash finds its position, takes its state from the
    /// cache, and goes back with the state (`drain`), so that putting it back hashes nothing.
    struct WorkingStreams {
        /// Positions by name: an open-addressed table (linear probing), at most half full, each
        /// bucket a position plus one (0: an empty bucket).
        private var table: [Int]
        private var names: [String] = []
        private var hashes: [Int] = []
        private var states: [WorkingStream] = []
        /// Streams taken out of the round (`remove`): not found, and skipped by `drain`.
        private var removed: Set<Int> = []

        init(capacity: Int) {
            var size = 16
            while size < capacity * 2 { size *= 2 }
            table = Array(repeating: 0, count: size)
            names.reserveCapacity(capacity)
            hashes.reserveCapacity(capacity)
            states.reserveCapacity(capacity)
        }

        /// Where the stream's state is, if the round holds it; `hash` is `stream.hashValue`.
        func position(of stream: String, hash: Int) -> Int? {
            let mask = table.count - 1
            var bucket = hash & mask
            while table[bucket] != 0 {
                let position = table[bucket] - 1
                if hashes[position] == hash, names[position] == stream {
                    return removed.isEmpty || !removed.contains(position) ? position : nil
                }
                bucket = (bucket + 1) & mask
            }
            return nil
        }

        /// Adds a stream the round does not hold yet; returns where its state is.
        mutating func add(_ stream: String, hash: Int, _ state: WorkingStream) -> Int {
            let position = states.count
            if (position + 1) * 2 > table.count { grow() }
            place(position, hash: hash)
            names.append(stream)
            hashes.append(hash)
            states.append(state)
            return position
        }

        subscript(position: Int) -> WorkingStream {
            get { states[position] }
            _modify { yield &states[position] }
        }

        subscript(stream: String) -> WorkingStream? { position(of: stream, hash: stream.hashValue).map { states[$0] } }

        /// Takes the stream out of the round: its state is not put back.
        mutating func remove(_ stream: String) {
            if let position = position(of: stream, hash: stream.hashValue) { removed.insert(position) }
        }

        /// Hands each stream still held, its name's hash and its state to `body`, last met first,
        /// moving the states out; the round holds nothing afterwards.
        mutating func drain(_ body: (String, Int, WorkingStream) -> Void) {
            table = [0]
            while let state = states.popLast() {
                let name = names.removeLast()
                let hash = hashes.removeLast()
                if removed.isEmpty || !removed.contains(states.count) { body(name, hash, state) }
            }
            removed = []
        }

        /// Twice the buckets, the positions placed again by their names' hashes.
        private mutating func grow() {
            table = Array(repeating: 0, count: table.count * 2)
            for position in hashes.indices { place(position, hash: hashes[position]) }
        }

        /// Puts `position` in the first empty bucket from its hash's.
        private mutating func place(_ position: Int, hash: Int) {
            let mask = table.count - 1
            var bucket = hash & mask
            while table[bucket] != 0 { bucket = (bucket + 1) & mask }
            table[bucket] = position + 1
        }
    }
}
