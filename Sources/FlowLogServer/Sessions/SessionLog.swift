#if Network
    import FlowDomain
    import FlowLog
    import FlowLogHistory
    import Foundation
    import Synchronization

    /// A dropped export, held in memory and read as the server's log is read: `POST /sessions`.
    ///
    /// It is read as `replay --file` reads a file, with the gaps the API allows: positions strictly
    /// increase (gaps are fine, so a one-stream export loads), each stream's versions run 1, 2, 3, …,
    /// event ids are unique. Events are kept as they are, even those today's rules would refuse. A
    /// state is folded from the stream's events; the last one asked for is kept per stream, so
    /// stepping forward through a long stream folds each event once.
    final class SessionLog: InspectedLog, Sendable {
        let id: String
        private let records: [RecordedEvent]
        /// Per stream, the indices of its events in `records` (index `v - 1` is version `v`).
        private let indices: [String: [Int]]
        private let names: [(stream: String, version: Int)]
        /// The last state asked for, per stream.
        private let folded = Mutex<[String: (version: Int, state: FlowState)]>([:])
        var eventCount: Int { records.count }
        var streamCount: Int { indices.count }

        struct Invalid: Error {
            let message: String
        }

        /// Reads an NDJSON export; throws `Invalid` naming the first line that is not one.
        init(id: String, ndjson bytes: UnsafeRawBufferPointer) throws {
            self.id = id
            var records: [RecordedEvent] = []
            var indices: [String: [Int]] = [:]
            var eventIds: [EventID: Int] = [:]
            // A session may hold some streams of a log (positions with gaps), each of them whole.
            var order = HistoryOrder(
                allowingPositionGaps: true, allowingVersionGaps: false,
                gapHint: "Export whole streams (`flowlog export --stream S`), or the whole log.")
            try NDJSONLines.forEach(in: bytes) { line, lineNumber in
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
                let record: RecordedEvent
                do throws(RecordedEventJSON.Problem) {
                    record = try RecordedEventJSON.decode(line)
                } catch {
                    throw Invalid(
                        message:
                            "Line \(lineNumber) is not an exported event: \(error.message). Give a file that `flowlog export` (or GET /events) wrote."
                    )
                }
                if let problem = order.admit(record, line: lineNumber) {
                    throw Invalid(message: "Line \(lineNumber) \(problem)")
                }
                if let earlier = eventIds[record.eventId] {
                    throw Invalid(message: "Line \(lineNumber) repeats event id \(record.eventId) of line \(earlier): each event appears once.")
                }
                eventIds[record.eventId] = lineNumber
                indices[record.stream, default: []].append(records.count)
                records.append(record)
            }
            guard !records.isEmpty else {
                throw Invalid(message: "The file holds no events; give an NDJSON export (`flowlog export`, GET /events or the inspector's download).")
            }
            self.records = records
            self.indices = indices
            names = indices.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ($0, indices[$0]!.count) }
        }

        func lastPosition() throws -> Int { records.last?.position ?? 0 }
        func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws {
            // The names sort in byte order: a binary search finds the first at or after `start`.
            var (low, high) = (0, names.count)
            if let start {
                while low < high {
                    let middle = (low + high) / 2
                    if names[middle].stream.utf8.lexicographicallyPrecedes(start.utf8) { low = middle + 1 } else { high = middle }
                }
            }
            for (stream, version) in names[low...] { guard try body(stream, version) else { return } }
        }
        func version(of stream: String) throws -> Int { indices[stream]?.count ?? 0 }

        func event(inStream stream: String, version: Int) throws -> RecordedEvent? {
            guard version >= 1, let positions = indices[stream], version <= positions.count else { return nil }
            return records[positions[version - 1]]
        }

        func state(ofStream stream: String, throughPosition position: Int?) throws -> (state: FlowState, version: Int) {
            guard let positions = indices[stream] else { return (FlowDecider.initialState, 0) }
            // The stream's last version at or before `position`.
            var version = positions.count
            if let position {
                var low = 0
                var high = positions.count
                while low < high {
                    let middle = (low + high) / 2
                    if records[positions[middle]].position <= position { low = middle + 1 } else { high = middle }
                }
                version = low
            }
            var (from, state) = folded.withLock { $0[stream] } ?? (0, FlowDecider.initialState)
            if from > version { (from, state) = (0, FlowDecider.initialState) }
            for index in from..<version { FlowDecider.evolve(&state, records[positions[index]].event) }
            let result = state
            folded.withLock { $0[stream] = (version, result) }
            return (result, version)
        }
    }
#endif
