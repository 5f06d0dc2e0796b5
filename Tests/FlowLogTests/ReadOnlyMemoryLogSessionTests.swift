import FlowDomain
import FlowLogBasics
import FlowLogMemory
import FlowLogStore
import Foundation
import Synchronization
import Testing

/// The read-only in-memory log: what a scratch session (`POST /sessions`) is held in, and the
/// read-only form of `InMemoryEventLog`, on the same storage and reading code.
@Suite("Read-only memory log (scratch sessions)")
struct ReadOnlyMemoryLogSessionTests {
    private static func added(_ product: Int) -> AppEvent {
        .cart(.productAdded(.init(productId: "p\(product)", name: "Mug", unitPrice: 100 + product, quantity: 1)))
    }

    private static func record(_ position: Int, _ stream: String, _ version: Int, id: UInt64? = nil) -> RecordedEvent {
        RecordedEvent(
            position: position, stream: stream, version: version, eventId: EventID(high: 7, low: id ?? UInt64(position)),
            timestamp: Timestamp(microseconds: 1_798_761_600_000_000 + Int64(position)), actor: .user, event: added(position))
    }

    private static func load(_ records: [RecordedEvent]) throws -> ReadOnlyMemoryLog {
        var loader = ReadOnlyMemoryLog.Loader()
        for (line, record) in records.enumerated() { try loader.add(record, line: line + 1) }
        return loader.finish()
    }

    /// The state a stream's events fold to, through `position`.
    private static func folded(_ records: [RecordedEvent], _ stream: String, through position: Int?) -> (FlowState, Int) {
        var state = FlowDecider.initialState
        var version = 0
        for record in records where record.stream == stream && record.position <= position ?? .max {
            FlowDecider.evolve(&state, record.event)
            version = record.version
        }
        return (state, version)
    }

    @Test func anExportOfSomeStreamsLoadsWithGapsInPositions() throws {
        let records = [Self.record(3, "b", 1), Self.record(5, "a", 1), Self.record(7, "b", 2), Self.record(12, "a", 2), Self.record(13, "b", 3)]
        let log = try Self.load(records)
        #expect(log.eventCount == 5 && log.streamCount == 2 && log.lastPosition() == 13)
        #expect(log.version(of: "a") == 2 && log.version(of: "b") == 3 && log.version(of: "c") == 0)
        #expect(log.event(inStream: "b", version: 2) == records[2])
        #expect(log.event(inStream: "b", version: 4) == nil && log.event(inStream: "a", version: 0) == nil)
        var streams: [String] = []
        log.forEachStream(from: nil) {
            streams.append("\($0)@\($1)")
            return true
        }
        #expect(streams == ["a@2", "b@3"])
        streams = []
        log.forEachStream(from: "aa") {
            streams.append("\($0)@\($1)")
            return true
        }
        #expect(streams == ["b@3"])
        var inStream: [Int] = []
        log.forEachEvent(inStream: "b", throughPosition: 10) {
            inStream.append($0.position)
            return true
        }
        #expect(inStream == [3, 7])
        // Forward, back and forward again: the kept state is folded on, or started over.
        for position in [nil, 2, 3, 6, 7, 12, 13, 4, 8, nil] as [Int?] {
            for stream in ["a", "b", "c"] {
                let (state, version) = log.state(ofStream: stream, throughPosition: position)
                let expected = Self.folded(records, stream, through: position)
                #expect(state == expected.0 && version == expected.1, "\(stream) through \(String(describing: position))")
            }
        }
    }

    @Test func theLoaderRefusesWhatWouldBreakTheLog() throws {
        var loader = ReadOnlyMemoryLog.Loader()
        try loader.add(Self.record(4, "a", 1), line: 1)
        #expect(throws: ReadOnlyMemoryLog.Loader.Refusal.positionNotAfter(last: 4)) { try loader.add(Self.record(4, "b", 1), line: 2) }
        #expect(throws: ReadOnlyMemoryLog.Loader.Refusal.versionNotNext(expected: 2)) { try loader.add(Self.record(5, "a", 3), line: 2) }
        #expect(throws: ReadOnlyMemoryLog.Loader.Refusal.versionNotNext(expected: 1)) { try loader.add(Self.record(5, "b", 2), line: 2) }
        #expect(throws: ReadOnlyMemoryLog.Loader.Refusal.repeatedEventId(line: 1)) { try loader.add(Self.record(5, "b", 1, id: 4), line: 3) }
        try loader.add(Self.record(9, "b", 1), line: 4)
        #expect(loader.count == 2)
        #expect(loader.finish().lastPosition() == 9)
    }

    @Test func theReadOnlyFormOfTheMemoryLogAnswersAsTheLogDoes() throws {
        let log = InMemoryEventLog()
        var count: UInt64 = 0
        func append(_ stream: String, _ product: Int) throws {
            count += 1
            let event = NewEvent(
                eventId: EventID(high: 1, low: count), timestamp: Timestamp(microseconds: 1), actor: .user, event: Self.added(product))
            _ = try log.append([AppendRequest(stream: stream, expectedVersion: nil, commandId: nil, events: [event])])
        }
        for round in 0..<6 {
            for stream in ["b", "a", "c", "ab"] where round < stream.count + 3 { try append(stream, round) }
        }
        _ = try log.forget(streams: ["c"], lastEventBefore: nil) { _ in nil }
        let (last, streams) = (try log.lastPosition(), try log.streams())
        #expect(last == 17 && streams.map(\.stream) == ["a", "ab", "b"])
        let readOnly = log.readOnly()
        // An append after it does not reach it: it holds the storage as it was.
        try append("a", 9)
        #expect(readOnly.lastPosition() == last && readOnly.eventCount == last && readOnly.streamCount == 3)
        #expect(readOnly.version(of: "a") == 4 && readOnly.event(inStream: "a", version: 5) == nil)
        var listed: [(stream: String, version: Int)] = []
        readOnly.forEachStream(from: nil) {
            listed.append(($0, $1))
            return true
        }
        #expect(listed.map(\.stream) == streams.map(\.stream) && listed.map(\.version) == streams.map(\.version))
        for stream in ["a", "ab", "b", "c"] {
            // Version 5 of `a` came after.
            for version in 0...6 where !(stream == "a" && version == 5) {
                #expect(readOnly.event(inStream: stream, version: version) == (try log.event(inStream: stream, version: version)))
            }
            for position in [nil] + Array(0...last) as [Int?] {
                let (state, version) = readOnly.state(ofStream: stream, throughPosition: position)
                let expected = try log.state(ofStream: stream, throughPosition: position ?? last)
                #expect(state == expected.state && version == expected.version, "\(stream) through \(String(describing: position))")
            }
        }
    }

    @Test func severalReadersAtOnceGetEachTheStateTheyAskFor() throws {
        var records: [RecordedEvent] = []
        var versions: [String: Int] = [:]
        for position in 1...2_000 {
            let stream = "s\(position % 5)"
            versions[stream, default: 0] += 1
            records.append(Self.record(position * 2, stream, versions[stream]!))
        }
        let log = try Self.load(records)
        // Each stream's state and version through every position, folded once.
        var expected = Array(repeating: [(FlowState, Int)](), count: 5)
        var states = Array(repeating: (FlowDecider.initialState, 0), count: 5)
        var next = 0
        for position in 0...4_000 {
            if next < records.count, records[next].position == position {
                let stream = Int(records[next].stream.dropFirst())!
                FlowDecider.evolve(&states[stream].0, records[next].event)
                states[stream].1 = records[next].version
                next += 1
            }
            for stream in 0..<5 { expected[stream].append(states[stream]) }
        }
        let wanted = expected
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { reader in
            var generator = SystemRandomNumberGenerator()
            for step in 0..<400 {
                let stream = (reader + step) % 5
                // Each reader steps forward, and now and then jumps back.
                let position = step % 50 == 49 ? Int.random(in: 0...4_000, using: &generator) : min(4_000, step * 10 + reader)
                let (state, version) = log.state(ofStream: "s\(stream)", throughPosition: position)
                if state != wanted[stream][position].0 || version != wanted[stream][position].1 { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
    }
}
