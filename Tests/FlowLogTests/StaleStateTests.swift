@testable import FlowLog
import FlowDomain
import FlowLogTesting
import Testing

/// A long-lived processor (`flowlog serve`'s writer) shares its log with other writers (`send`,
/// another server). The append's version check and main's retries cover the commands it accepts;
/// a command it *rejects* never reaches the log, so only `forgetStaleStates` keeps it from being
/// rejected against a state another writer has moved on from.
@Suite("Stale states in a long-lived processor")
struct StaleStateTests {
    private func add(_ product: String, price: Int) -> CommandEnvelope {
        CommandEnvelope(stream: "s1", command: .cart(.addProduct(.init(productId: product, name: nil, unitPrice: price, quantity: 1))))
    }

    private let remove = CommandEnvelope(stream: "s1", command: .cart(.removeProduct(.init(productId: "p1", quantity: nil))))

    private func rejectionCode(_ outcome: CommandOutcome) -> RejectionCode? {
        if case .rejected(_, let rejection) = outcome { return rejection.code }
        return nil
    }

    /// The server caches s1 with p1 at 1250; another process removes p1; p1 at 1300 is then a new line.
    private func scenario(forgetting: Bool) throws -> (outcome: CommandOutcome, head: Int) {
        let log = InMemoryEventLog()
        let server = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let other = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1_000))
        _ = try server.handle(add("p1", price: 1250))
        _ = try other.handle(remove)
        if forgetting { try server.forgetStaleStates(of: ["s1"]) }
        let outcome = try server.handle(add("p1", price: 1300))
        return (outcome, try log.lastPosition())
    }

    @Test func withoutForgettingACommandIsRejectedAgainstTheStaleStateAndNoRetryHelps() throws {
        let (outcome, head) = try scenario(forgetting: false)
        #expect(rejectionCode(outcome) == .priceMismatch)
        #expect(head == 2)
    }

    @Test func forgettingStaleStatesDecidesAgainstTheLogsState() throws {
        let (outcome, head) = try scenario(forgetting: true)
        #expect(rejectionCode(outcome) == nil)
        #expect(head == 3)
    }

    @Test func aStreamNobodyElseMovedStaysCached() throws {
        let log = InMemoryEventLog()
        let server = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        _ = try server.handle(add("p1", price: 1250))
        try server.forgetStaleStates(of: ["s1", "never-seen"])
        #expect(server.cache["s1"]?.version == 1)
        #expect(server.cache["never-seen"] == nil)
    }
}
