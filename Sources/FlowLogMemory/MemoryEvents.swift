import FlowLogStore

/// The events of a log in memory and the per-stream indices that find them: the storage
/// `InMemoryEventLog` writes and `ReadOnlyMemoryLog` reads, with the reading code both answer from.
///
/// Records are kept in position order and each stream's versions run 1, 2, 3, …, so index `v - 1`
/// of a stream's indices is its version `v`. Positions need only increase: `InMemoryEventLog`
/// numbers its own 1, 2, 3, …, while a read-only log loaded from an export of some streams has gaps.
/// So a record is found by its index in `records`, never by its position.
struct MemoryEvents: Sendable {
    private(set) var records: [RecordedEvent] = []
    /// Per stream, the indices of its events in `records` (index `v - 1` is version `v`). A
    /// forgotten stream has none: its records stay in `records`, blanked, with their positions.
    private(set) var streams: [String: [Int]] = [:]
    /// The stream names in byte order, for paging through them; `nil` once a stream comes or goes,
    /// until `sortNames()`.
    private var sortedNames: [String]? = []

    var lastPosition: Int { records.last?.position ?? 0 }

    func version(of stream: String) -> Int { streams[stream]?.count ?? 0 }

    /// The indices in `records` of the stream's events, in version order.
    func indices(of stream: String) -> [Int] { streams[stream] ?? [] }

    func event(inStream stream: String, version: Int) -> RecordedEvent? {
        guard version >= 1, let indices = streams[stream], version <= indices.count else { return nil }
        return records[indices[version - 1]]
    }

    /// The stream's last version at or before global position `position` (its version when `nil`):
    /// a binary search of its indices, since positions increase.
    func version(of stream: String, throughPosition position: Int?) -> Int {
        guard let indices = streams[stream] else { return 0 }
        guard let position else { return indices.count }
        var (low, high) = (0, indices.count)
        while low < high {
            let middle = (low + high) / 2
            if records[indices[middle]].position <= position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) rethrows {
        for index in streams[stream] ?? [] {
            let record = records[index]
            if let throughPosition, record.position > throughPosition { return }
            guard try body(record) else { return }
        }
    }

    /// Each stream and its version in byte order of the names, from the first at or after `start`
    /// (`EventLog.forEachStream`). It reads this value, so `body` may change the log it came from.
    func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) rethrows {
        let names = sortedNames ?? Self.sorted(streams.keys)
        // The names sort in byte order: a binary search finds the first at or after `start`.
        var (low, high) = (0, names.count)
        if let start {
            while low < high {
                let middle = (low + high) / 2
                if names[middle].utf8.lexicographicallyPrecedes(start.utf8) { low = middle + 1 } else { high = middle }
            }
        }
        for name in names[low...] {
            guard try body(name, streams[name]!.count) else { return }
        }
    }

    // MARK: Changes

    /// Adds the record after the others; the caller keeps positions increasing and each stream's
    /// versions running 1, 2, 3, … (`AppendRules`, or `ReadOnlyMemoryLog.Loader`).
    mutating func append(_ record: RecordedEvent) {
        let index = records.count
        records.append(record)
        if streams[record.stream]?.append(index) == nil {
            streams[record.stream] = [index]
            sortedNames = nil
        }
    }

    /// Puts `record` in place of the record at `index` (a forget blanks a record, in place).
    mutating func replace(at index: Int, with record: RecordedEvent) { records[index] = record }

    /// Drops a forgotten stream's indices (its records stay).
    mutating func removeStream(_ stream: String) {
        if streams.removeValue(forKey: stream) != nil { sortedNames = nil }
    }

    /// Sorts the stream names once, for the walks that follow, until a stream comes or goes.
    mutating func sortNames() {
        if sortedNames == nil { sortedNames = Self.sorted(streams.keys) }
    }

    private static func sorted(_ names: Dictionary<String, [Int]>.Keys) -> [String] {
        names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
