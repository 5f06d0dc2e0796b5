import FlowLogBasics
public import FlowLogStore
import Synchronization

/// The read-only form of the in-memory log, which several threads may read at once: what the
/// server holds for a scratch session (an export dropped on the inspector, `POST /sessions`), or
/// `InMemoryEventLog.readOnly()`.
///
/// It is the same storage as `InMemoryEventLog` (`MemoryEvents`: the records in position order and
/// each stream's indices into them), read by the same code; it is `Sendable` because nothing in it
/// changes after loading. Loaded from a file (`Loader`), its positions may have gaps (an export of
/// some streams), while each stream's versions run 1, 2, 3, … and no event id comes twice. What it
/// adds for its readers is the last state asked for, per stream, so stepping forward through a long
/// stream folds each event once.
///
/// Memory: a server holds several of these (8, for an hour after their last use), so one holds no
/// more than what it is read from, as the server's own session log did before it: the records, each
/// stream's indices into them, the stream names in byte order (for paging through them) and one
/// folded state per stream asked about. Nothing of the writable log's bookkeeping (fingerprints,
/// receipts, snapshots, checkpoints, read models) comes with it, and the event ids the loader checks
/// are dropped when loading ends.
public final class ReadOnlyMemoryLog: Sendable {
    private let events: MemoryEvents
    /// The last state asked for, per stream.
    private let folded = Mutex<[String: StreamFold]>([:])

    init(_ events: MemoryEvents) {
        var events = events
        events.sortNames()
        self.events = events
    }

    public var eventCount: Int { events.records.count }
    public var streamCount: Int { events.streams.count }

    public func lastPosition() -> Int { events.lastPosition }

    /// Each stream's name and version in byte order of the names, from the first at or after
    /// `start`, until `body` returns `false` (`EventLog.forEachStream`).
    public func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) rethrows {
        try events.forEachStream(from: start, body)
    }

    public func version(of stream: String) -> Int { events.version(of: stream) }

    public func event(inStream stream: String, version: Int) -> RecordedEvent? { events.event(inStream: stream, version: version) }

    public func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) rethrows {
        try events.forEachEvent(inStream: stream, throughPosition: throughPosition, body)
    }

    /// The stream's state and version right after global position `position` (or now), folded on
    /// from the last state asked for when that is not past it.
    public func state(ofStream stream: String, throughPosition position: Int?) -> (state: LogDecider.State, version: Int) {
        let version = events.version(of: stream, throughPosition: position)
        guard version > 0 else { return (LogDecider.initialState, 0) }
        var fold = folded.withLock { $0[stream] } ?? .initial
        if fold.version > version { fold = .initial }
        // A stream's versions run 1, 2, 3, …: its index `v - 1` is version `v`.
        for index in events.indices(of: stream)[fold.version..<version] { fold.fold(events.records[index]) }
        folded.withLock { [fold] in $0[stream] = fold }
        return fold.value
    }

    /// Takes a log's events in position order and refuses those that would break it: a position
    /// not past the one before (gaps are fine), a version not next in its stream, an event id that
    /// came before. The ids are held only while loading.
    public struct Loader {
        private var events = MemoryEvents()
        /// Each event id taken, with the line that held it.
        private var lines: [EventID: Int] = [:]

        public init() {}

        public var count: Int { events.records.count }

        /// Why `add` refused an event.
        public enum Refusal: Error, Equatable, Sendable {
            /// Positions must increase; `last` is the position before.
            case positionNotAfter(last: Int)
            /// A stream's versions run 1, 2, 3, …; `expected` is the one that would be next.
            case versionNotNext(expected: Int)
            /// The event id is that of the event taken with `line`.
            case repeatedEventId(line: Int)
        }

        /// Takes the event; `line` is where it was read, for a later refusal to name.
        public mutating func add(_ record: RecordedEvent, line: Int) throws(Refusal) {
            if let last = events.records.last?.position, record.position <= last { throw .positionNotAfter(last: last) }
            let expected = events.version(of: record.stream) + 1
            guard record.version == expected else { throw .versionNotNext(expected: expected) }
            if let earlier = lines[record.eventId] { throw .repeatedEventId(line: earlier) }
            lines[record.eventId] = line
            events.append(record)
        }

        /// The log of the events taken.
        public consuming func finish() -> ReadOnlyMemoryLog { ReadOnlyMemoryLog(events) }
    }
}
