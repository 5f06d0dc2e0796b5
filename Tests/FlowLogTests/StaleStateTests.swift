import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog

#if Network
    import FlowLogPostgres
#endif

/// Two writers on one log (`flowlog serve` beside a `send`, two `send`s on PostgreSQL): the
/// server's processor caches a stream's state, the other writer moves the stream, and the server
/// then decides a command against its cache. Whatever the cache said, the answer must be the one
/// the log's state gives, and nothing may be appended twice. A rejection against a cached state
/// costs one version lookup; an acceptance is checked by the append's expected version.
@Suite("Stale states: two writers on one log")
struct StaleStateTests {
    /// Two processors on one log: one log object for memory and LMDB (LMDB opens an environment
    /// once per process), two connections for PostgreSQL, as two processes would have.
    final class TwoWriters {
        let log: any EventLog
        let server: CommandProcessor
        let other: CommandProcessor
        private let keep: [AnyObject]

        init(_ kind: LogKind) throws {
            let fixture = try LogFixture(kind)
            log = fixture.log
            var otherLog: any EventLog = fixture.log
            var keep: [AnyObject] = [fixture]
            #if Network
                if kind == .postgres, let postgres = fixture.log as? PostgresEventLog {
                    let second = try PostgresEventLog(url: postgres.url, access: .readWrite)
                    otherLog = second
                    keep.append(second)
                }
            #endif
            self.keep = keep
            server = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            other = CommandProcessor(log: otherLog, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1_000))
        }

        /// Every event of the log, as (stream, version) pairs in position order.
        func history() throws -> [String] { try log.events().map { "\($0.stream)@\($0.version)" } }
    }

    private func add(_ product: String, price: Int, expectedVersion: Int? = nil) -> CommandEnvelope {
        CommandEnvelope(
            stream: "s1", expectedVersion: expectedVersion,
            command: .cart(.addProduct(.init(productId: product, name: nil, unitPrice: price, quantity: 1))))
    }

    private let remove = CommandEnvelope(stream: "s1", command: .cart(.removeProduct(.init(productId: "p1", quantity: nil))))

    private func rejectionCode(_ outcome: CommandOutcome) -> RejectionCode? {
        if case .rejected(_, let rejection) = outcome { return rejection.code }
        return nil
    }

    private func positions(_ outcome: CommandOutcome) -> [Int]? {
        if case .accepted(let acceptance) = outcome { return acceptance.receipt.positions }
        return nil
    }

    @Test(arguments: LogKind.allCases)
    func aCommandTheStaleCacheRejectsIsAcceptedWhenTheLogsStateAllowsIt(kind: LogKind) throws {
        // Given the server cached s1 with p1 at 1250, and another writer removed p1
        let writers = try TwoWriters(kind)
        _ = try writers.server.handle(add("p1", price: 1250))
        _ = try writers.other.handle(remove)
        // When the server adds p1 at 1300 (a price mismatch against its cache)
        let outcome = try writers.server.handle(add("p1", price: 1300))
        // Then it is a new line in the log's state, appended once
        #expect(rejectionCode(outcome) == nil)
        #expect(positions(outcome) == [3])
        #expect(try writers.history() == ["s1@1", "s1@2", "s1@3"])
        #expect(writers.server.cache["s1"]?.version == 3)
    }

    @Test(arguments: LogKind.allCases)
    func aCommandTheStaleCacheAcceptsIsRejectedWithTheLogsStatesError(kind: LogKind) throws {
        // Given the server cached s1 with p1, and another writer removed p1
        let writers = try TwoWriters(kind)
        _ = try writers.server.handle(add("p1", price: 1250))
        _ = try writers.other.handle(remove)
        // When the server removes p1 too (its cache still holds p1), beside a command on another stream
        let elsewhere = CommandEnvelope(stream: "s2", command: .cart(.addProduct(.init(productId: "p9", name: nil, unitPrice: 100, quantity: 1))))
        let outcomes = try writers.server.handle([remove, elsewhere])
        // Then the append's version check sends it back to the log's state, where p1 is not in the
        // cart: rejected as the log's state rejects it, not as a version conflict; nothing appended twice
        #expect(rejectionCode(outcomes[0]) == .productNotInCart)
        #expect(positions(outcomes[1]) == [3])
        #expect(try writers.history() == ["s1@1", "s1@2", "s2@1"])
    }

    @Test(arguments: LogKind.allCases)
    func anExpectedVersionIsCheckedAgainstTheLogNotTheCache(kind: LogKind) throws {
        // Given the server cached s1 at version 1, and another writer moved it to version 2
        let writers = try TwoWriters(kind)
        _ = try writers.server.handle(add("p1", price: 1250))
        _ = try writers.other.handle(add("p2", price: 500))
        // When the server gets a command expecting version 2: the log's, not its cache's
        let current = try writers.server.handle(add("p3", price: 700, expectedVersion: 2))
        // Then it is accepted at version 3
        #expect(positions(current) == [3])
        // When the other writer moves s1 to version 4 and the server gets one expecting 3 (its cache's)
        _ = try writers.other.handle(add("p5", price: 100))
        let outdated = try writers.server.handle(add("p4", price: 900, expectedVersion: 3))
        // Then the caller's expected version decides: a version conflict naming version 4, not a retry
        #expect(rejectionCode(outdated) == .versionConflict)
        if case .rejected(_, let rejection) = outdated { #expect(rejection.message.contains("at version 4")) }
        #expect(try writers.history() == ["s1@1", "s1@2", "s1@3", "s1@4"])
    }

    @Test(arguments: LogKind.allCases)
    func aCommandAcceptedAgainstAStaleCacheIsDecidedAgainInsteadOfFailing(kind: LogKind) throws {
        // Given the server cached s1 with p1, and another writer added p2
        let writers = try TwoWriters(kind)
        _ = try writers.server.handle(add("p1", price: 1250))
        _ = try writers.other.handle(add("p2", price: 500))
        // When the server adds p2 again at another price (its cache has no p2, so it accepts)
        let outcome = try writers.server.handle(add("p2", price: 600))
        // Then the append's conflict reloads s1, and the log's state rejects the price
        #expect(rejectionCode(outcome) == .priceMismatch)
        #expect(try writers.history() == ["s1@1", "s1@2"])
    }

    @Test(arguments: LogKind.allCases)
    func aRejectionAgainstAFreshCacheStandsAndKeepsTheCache(kind: LogKind) throws {
        // Given the server cached s1 with p1 at 1250 and nobody else wrote
        let writers = try TwoWriters(kind)
        _ = try writers.server.handle(add("p1", price: 1250))
        // When it adds p1 at 1300
        let outcome = try writers.server.handle(add("p1", price: 1300))
        // Then the version lookup finds the cache current: a price mismatch, the state still cached
        #expect(rejectionCode(outcome) == .priceMismatch)
        #expect(writers.server.cache["s1"]?.version == 1)
        #expect(try writers.history() == ["s1@1"])
    }
}
