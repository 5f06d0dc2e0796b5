import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog

/// `send`'s look-ahead weighs each slice of a read by the pages of the log's table of streams its
/// streams change (`SlicePages`, `PrefetchedState.tablePage`), so that a commit of sessions with
/// random ids holds no more of them than `AppendRules.pagesPerCommit`.
@Suite("Slices weighed by their pages")
struct SlicePagesTests {
    private func add(_ stream: String, _ product: String) -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: product, name: nil, unitPrice: 500, quantity: 1))))
    }

    private func read(_ envelopes: [CommandEnvelope]) -> SendSession.ParsedBatch {
        var read = SendSession.ParsedBatch()
        read.envelopes = envelopes
        read.lineRejections = envelopes.map { _ in nil }
        return read
    }

    /// A slice changes at most `pagesPerSlice` pages of the table of streams: new streams whose
    /// entries fall on pages of their own (sessions with random ids) are cut apart, and new streams
    /// whose entries fall together (sessions named in sequence) go on whole.
    @Test func aSliceChangesAtMostItsPagesOfTheTableOfStreams() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let known = (0..<2_000).map { String(format: "s%04d", $0) }
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1 << 40))
            .handle(known.map { add($0, "p1") })
        // Given new streams 400 entries apart (a leaf holds fewer), so on five pages
        let prefetcher = try #require(StatePrefetcher(log: log, pagesPerSlice: 2))
        let scattered = stride(from: 0, to: 2_000, by: 400).map { String(format: "s%04da", $0) }
        // When the look-ahead slices a read of them
        let slices = prefetcher.slices(of: read(scattered.flatMap { [add($0, "p1"), add($0, "p2")] }))
        // Then each slice holds two pages' streams, and every command is in one
        let expected = [[0, 0, 1, 1], [2, 2, 3, 3], [4, 4]].map { $0.map { scattered[$0] } }
        #expect(slices.map { $0.batch.envelopes.map(\.stream) } == expected)
        #expect(slices.map(\.pages) == [2, 2, 1])
        #expect(slices.map(\.states.count) == [2, 2, 1], "each new stream marked in its own slice")
        // And the next read's first slice goes on from the last one's page, which it is not weighed by
        let following = prefetcher.slices(of: read(["s0200a", "s0600a"].map { add($0, "p1") }))
        #expect(following.map { $0.batch.envelopes.map(\.stream) } == [["s0200a"], ["s0600a"]])
        #expect(following.map(\.pages) == [1, 1])
        // And 300 new streams past the last name fall on one page, and a page for each 64
        let together = (0..<300).map { String(format: "t%04d", $0) }
        let next = read(together.map { add($0, "p1") })
        let whole = try #require(StatePrefetcher(log: log, pagesPerSlice: 8)).slices(of: next)
        #expect(whole.count == 1 && whole.first?.pages == 1 + 300 / 64)
        #expect(whole.first?.batch.envelopes == next.envelopes)
    }

    /// The pages a slice changes: each page once, a stream whose page is unknown a page of its own
    /// (by its name's hash), a page more for each 64 streams, and the first stream always fits.
    @Test func slicePagesCountEachPageOnce() {
        var pages = SlicePages()
        var admitted = [pages.admits(page: 7, hash: 1, within: 0)]
        #expect(admitted == [true], "the first always fits")
        admitted = [pages.admits(page: 7, hash: 2, within: 1), pages.admits(page: 8, hash: 3, within: 1)]
        #expect(admitted == [true, false] && pages.count == 1)
        admitted = [4, 4, 5].map { pages.admits(page: nil, hash: $0, within: 2) }
        #expect(admitted == [true, true, false] && pages.count == 2)
        admitted = (10..<70).map { pages.admits(page: 7, hash: $0, within: 3) }
        // 64 streams counted: a page for the entries they fill
        #expect(!admitted.contains(false) && pages.count == 3)
        admitted = [pages.admits(page: 9, hash: 99, within: 3)]
        #expect(admitted == [false])
    }
}
