import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog
@testable import FlowLogHistory

/// `replay --summary` as text says how many orders a session placed, not which: its walks then
/// hold a few of each state's kept rows and count the rest (`StreamSummaries.KeptRowsShown.count`),
/// so that neither many long sessions nor one very long one makes the walk hold every order.
@Suite("Summaries that show kept rows by their number")
struct SummaryKeptRowsTests {
    private static func orders(_ count: Int, stream: String) -> [CommandEnvelope] {
        (1...count).flatMap { number in
            [
                CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: "p\(number)", name: nil, unitPrice: 500, quantity: 1)))),
                CommandEnvelope(stream: stream, command: .cart(.checkout)),
                CommandEnvelope(stream: stream, command: .payment(.succeeded(.init(orderId: "o\(number)")))),
            ]
        }
    }

    @Test(arguments: LogKind.allCases)
    func aSummaryOfCountsHoldsAFewRowsAndCountsThemAll(kind: LogKind) throws {
        // Given a session of 30 orders and one of 3
        let fixture = try LogFixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let processor = CommandProcessor(log: fixture.log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let outcomes = try processor.handle(Self.orders(30, stream: "long") + Self.orders(3, stream: "short"))
        #expect(outcomes.allSatisfy { if case .accepted = $0 { true } else { false } })
        var scratch = BinaryWriter(capacity: 256)
        // When both walks (stream by stream, and in position order) summarize it, showing rows and showing their number
        for limit in [0, Int.max] {
            var whole: [StreamSummaries.Summary] = []
            var counted: [StreamSummaries.Summary] = []
            try StreamSummaries.forEachFinalState(of: fixture.log, positionWalkLimit: limit) { whole.append($0) }
            try StreamSummaries.forEachFinalState(of: fixture.log, keptRows: .count, positionWalkLimit: limit) { counted.append($0) }
            // Then the states shown whole hold every order
            #expect(whole.map(\.stream) == ["long", "short"])
            #expect(whole.map { LogDecider.keptRows(of: $0.state).count } == [30, 3])
            // And the counted ones hold a few, count them all, end on the same order and fingerprint alike
            #expect(counted.map(\.stream) == whole.map(\.stream) && counted.map(\.version) == whole.map(\.version))
            for (held, all) in zip(counted, whole) {
                #expect(LogDecider.keptRows(of: held.state).count <= StreamSummaries.rowsHeldForCount)
                #expect(LogDecider.keptRowCount(of: held.state) == LogDecider.keptRowCount(of: all.state))
                #expect(LogDecider.keptRows(of: held.state).last == LogDecider.keptRows(of: all.state).last)
                #expect(LogDecider.fingerprint(held.state, scratch: &scratch) == LogDecider.fingerprint(all.state, scratch: &scratch))
            }
            #expect(LogDecider.keptRows(of: counted[0].state).count < 30, "the long session's state was slimmed (limit \(limit))")
        }
    }

    /// `replay --verify` compares fingerprints, which need the rows' number and the latest: its
    /// walks hold a few rows too, and a disagreement still reports the state whole.
    @Test(arguments: LogKind.allCases)
    func theVerifierHoldsAFewRowsAndReportsADisagreeingStateWhole(kind: LogKind) throws {
        // Given a session of 30 orders and one of 3
        let fixture = try LogFixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let processor = CommandProcessor(log: fixture.log, clock: SteppingClock(), ids: SequentialIDGenerator())
        _ = try processor.handle(Self.orders(30, stream: "long") + Self.orders(3, stream: "short"))
        // And a reducer that loses each product added once a session has placed 20 orders
        let broken: (inout LogDecider.State, LogDecider.Event) -> Void = { state, event in
            if event.typeName == "cart.productAdded", LogDecider.keptRowCount(of: state) >= 20 { return }
            LogDecider.evolve(&state, event)
        }
        for limit in [0, Int.max] {
            // When both walks verify the log with today's reducer, and with the broken one
            let agreeing = try ReplayVerifier.verifyFingerprints(of: fixture.log, positionWalkLimit: limit)
            let report = try ReplayVerifier.verifyFingerprints(of: fixture.log, positionWalkLimit: limit, evolve: broken)
            // Then today's agrees everywhere
            #expect(agreeing.disagreements.isEmpty && agreeing.comparisons == agreeing.events && agreeing.events == 99)
            // And the broken one disagrees at the long session's 21st product, whose state holds all 20 orders
            #expect(report.disagreements.map(\.stream) == ["long"])
            let disagreement = try #require(report.disagreements.first)
            #expect(disagreement.version == 61)
            #expect(LogDecider.keptRows(of: disagreement.replayed).map(\.orderId) == (1...20).map { "o\($0)" })
        }
    }
}
