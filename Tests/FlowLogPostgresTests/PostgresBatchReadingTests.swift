// Needs the `Network` trait: PostgreSQL and the HTTPS transport are built only with it.
#if Network
    import FlowDomain
    @testable import FlowLog
    import FlowLogBasics
    import FlowLogPostgres
    import FlowLogTesting
    import Foundation
    import Testing

    /// `StreamBatchReading` on PostgreSQL: many streams' states, versions and receipts read together
    /// must be what reading them one by one gives.
    @Suite("PostgreSQL: streams read together")
    struct PostgresBatchReadingTests {
        private func add(_ stream: String, _ product: String, price: Int = 100, id: String? = nil) -> CommandEnvelope {
            CommandEnvelope(
                stream: stream, commandId: id, command: .cart(.addProduct(.init(productId: product, name: nil, unitPrice: price, quantity: 1))))
        }

        @Test func statesAndVersionsAreThoseReadOneByOneAcrossSnapshots() throws {
            // Given streams of 0, 2, 7 and 12 events, with a snapshot every 5 events
            let log = try PostgresEventLog.open(url: PostgresServer.shared.url(), access: .readWriteCreating)
            try log.setSnapshotInterval(5)
            let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            for (stream, count) in [("two", 2), ("seven", 7), ("twelve", 12)] {
                for n in 0..<count { _ = try processor.handle(add(stream, "p\(n)")) }
            }
            #expect(try log.snapshotCount() == 3)
            // When they are read together
            let streams = ["none", "two", "seven", "twelve"]
            let states = try log.states(ofStreams: streams)
            let versions = try log.versions(of: streams)
            // Then each is what the single-stream read gives
            for stream in streams {
                let single = try log.state(ofStream: stream)
                #expect(states[stream]?.version == single.version)
                #expect(states[stream]?.state == single.state)
                #expect(versions[stream] == single.version)
            }
            #expect(versions["twelve"] == 12)
        }

        @Test func aBatchWithCommandIdsIsAnsweredAsOneByOne() throws {
            // Given commands c1 and c2 accepted on a PostgreSQL log
            let log = try PostgresEventLog.open(url: PostgresServer.shared.url(), access: .readWriteCreating)
            let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            _ = try processor.handle([add("a", "p1", id: "c1"), add("b", "p1", id: "c2")])
            // When a batch repeats c1, reuses c2 for another command, repeats c3 within itself, and adds c4
            let outcomes = try processor.handle([
                add("a", "p1", id: "c1"), add("b", "p9", id: "c2"), add("a", "p3", id: "c3"),
                add("a", "p3", id: "c3"), add("b", "p4", id: "c4"),
            ])
            // Then c1 is a duplicate, c2 an idempotency conflict, c3 accepted once, c4 accepted
            func summary(_ outcome: CommandOutcome) -> String {
                switch outcome {
                case .accepted(let acceptance): "\(acceptance.duplicate ? "duplicate" : "accepted") \(acceptance.receipt.firstPosition)"
                case .rejected(_, let rejection): "\(rejection.code)"
                }
            }
            #expect(outcomes.map(summary) == ["duplicate 1", "idempotencyConflict", "accepted 3", "duplicate 3", "accepted 4"])
            let receipts = try log.receipts(of: [("a", "c1"), ("b", "c2"), ("a", "c3"), ("a", "nope")])
            #expect(receipts["a"]?["c1"]?.firstPosition == 1)
            #expect(receipts["b"]?["c2"]?.firstPosition == 2)
            #expect(receipts["a"]?["c3"]?.firstPosition == 3)
            #expect(receipts["a"]?["nope"] == nil)
        }
    }
#endif
