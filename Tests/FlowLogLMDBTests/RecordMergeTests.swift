import Testing

@testable import FlowLogLMDB

/// A fold meets the pending records' streams through `RecordMerge`: in id byte order, and a stream
/// in several records oldest record first, which is the order its versions were appended in.
@Suite("Merging batch records")
struct RecordMergeTests {
    /// Every stream of every record, in the order the merge hands them over.
    static func merged(_ records: [[String]]) throws -> [(stream: String, record: Int)] {
        let encoded = records.enumerated().map { number, streams in
            var record = BatchRecord()
            for (ordinal, stream) in streams.enumerated() {
                record.addEvent(stream: stream, version: number + 1, position: number * 1_000 + ordinal + 1, ordinal: ordinal)
            }
            return record.encoded()
        }
        var order: [(stream: String, record: Int)] = []
        try withViews(encoded[...], views: []) { views in
            var merge = RecordMerge(try views.map { try StreamCursor($0, index: 0) })
            while let stream = merge.smallest.map({ String(decoding: $0, as: UTF8.self) }) {
                try merge.forEachPart { cursor in
                    #expect(String(decoding: cursor.record.stream(at: cursor.index)!.id, as: UTF8.self) == stream)
                    order.append((stream, cursor.record.key))
                }
            }
        }
        return order
    }

    /// The records' bytes held for the views' life.
    static func withViews(_ rest: ArraySlice<[UInt8]>, views: [BatchRecordView], _ body: ([BatchRecordView]) throws -> Void) throws {
        guard let first = rest.first else { return try body(views) }
        try first.withUnsafeBytes { bytes in
            let view = try #require(BatchRecordView(key: views.count, bytes: bytes))
            try withViews(rest.dropFirst(), views: views + [view], body)
        }
    }

    @Test func streamsComeInIdOrderAndEachStreamOldestRecordFirst() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            // Session names whose byte order is not their numbers' ("session-10" before "session-2").
            let records = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                Array(Set((0..<Int.random(in: 0...40, using: &generator)).map { _ in "session-\(Int.random(in: 0..<60, using: &generator))" }))
            }
            let expected = records.enumerated().flatMap { number, streams in streams.map { (stream: $0, record: number) } }
                .sorted { ($0.stream.utf8.lexicographicallyPrecedes($1.stream.utf8)) || ($0.stream == $1.stream && $0.record < $1.record) }
            let order = try Self.merged(records)
            #expect(order.map(\.stream) == expected.map(\.stream))
            #expect(order.map(\.record) == expected.map(\.record))
        }
    }

    @Test func emptyRecordsAndAPrefixOfAnotherStreamsId() throws {
        let order = try Self.merged([[], ["ab", "a"], [], ["a", "abc"], ["ab"]])
        #expect(order.map(\.stream) == ["a", "a", "ab", "ab", "abc"])
        #expect(order.map(\.record) == [1, 3, 1, 4, 3])
    }
}
