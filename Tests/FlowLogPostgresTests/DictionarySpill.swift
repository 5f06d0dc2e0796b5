#if Network
    import FlowLogStore

    /// A spill in memory, for the PostgreSQL import's side of `ImportStreamSpill`.
    final class DictionarySpill: ImportStreamSpill, @unchecked Sendable {
        private var streams: [String: (version: Int, position: Int, state: StreamState)] = [:]
        private(set) var setAsideCount = 0
        private(set) var takenBack = 0

        func setAside(_ streams: [(stream: String, version: Int, position: Int, state: StreamState)]) throws {
            for stream in streams { self.streams[stream.stream] = (stream.version, stream.position, stream.state) }
            setAsideCount += streams.count
        }

        func takeBack(_ stream: String) throws -> (version: Int, position: Int, state: StreamState)? {
            guard let found = streams[stream] else { return nil }
            takenBack += 1
            return found
        }

        func forEachStream(_ body: (String, Int, Int, StreamState) throws -> Void) throws {
            for (stream, found) in streams.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                try body(stream, found.version, found.position, found.state)
            }
        }
    }
#endif
