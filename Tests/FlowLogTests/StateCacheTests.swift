import FlowDomain
import FlowLogBasics
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog

/// The command processor keeps streams' states between batches within a budget; a stream it
/// dropped is loaded again, and nothing it answers or appends changes.
@Suite("State cache")
struct StateCacheTests {
    @Test func theLeastRecentlyUsedStreamsGoFirstAndTheCostStaysWithinTheBudget() {
        var cache = StateCache(budget: 3 * StateCache.cost(of: FlowDecider.initialState))
        for index in 0..<10 { cache.put((FlowDecider.initialState, index), for: "s\(index)") }
        #expect(cache.count == 3)
        #expect(cache.cost <= cache.budget)
        #expect(cache["s9"]?.version == 9 && cache["s8"] != nil && cache["s7"] != nil && cache["s6"] == nil)
        // Used again, s7 outlives s8.
        let taken = cache.take("s7")!
        cache.put(taken, for: "s7")
        cache.put((FlowDecider.initialState, 10), for: "s10")
        #expect(cache["s7"] != nil && cache["s8"] == nil)
        // Where the log keeps rows apart, a long history loses its older orders (their ids' 8-byte
        // hashes stay): a fraction of its cost whole.
        cache.keepsLatestRowOnly = true
        var history = FlowDecider.initialState
        for order in 0..<1_000 { FlowDecider.evolve(&history, .cart(.orderPlaced(.init(orderId: "o\(order)", total: 1, itemCount: 1)))) }
        cache.put((history, 1), for: "history")
        #expect(cache["history"]?.state.orders.orders.map(\.orderId) == ["o999"] && cache["history"]?.state.orders.count == 1_000)
        #expect(FlowDecider.estimatedCost(of: cache["history"]!.state) * 4 < FlowDecider.estimatedCost(of: history))
        // A state larger than the budget is still kept while it is the newest.
        var large = FlowDecider.initialState
        for line in 0..<40 { FlowDecider.evolve(&large, .cart(.productAdded(.init(productId: "p\(line)", name: "", unitPrice: 1, quantity: 1)))) }
        cache.put((large, 1), for: "large")
        #expect(cache.count == 1 && cache["large"] != nil)
        for index in 0..<5_000 { cache.put((FlowDecider.initialState, index), for: "t\(index % 7)") }
        #expect(cache.count == 3)
    }

    /// A name longer than a `String`'s inline bytes (a random session id) is an allocation the
    /// cache holds too: a budget of three short-named states holds two long-named ones.
    @Test func longStreamNamesCountAgainstTheBudget() {
        var cache = StateCache(budget: 3 * StateCache.cost(of: FlowDecider.initialState))
        let name = { (index: Int) in "5f0c3a9e-1b2d-4c6f-8a7b-\(String(repeating: "0", count: 8))\(1_000 + index)" }
        #expect(name(0).utf8.count == 36)
        for index in 0..<10 { cache.put((FlowDecider.initialState, index), for: name(index)) }
        #expect(cache.count == 2 && cache.cost <= cache.budget)
        #expect(cache[name(9)]?.version == 9 && cache[name(8)] != nil && cache[name(7)] == nil)
        #expect(StateCache.cost(of: FlowDecider.initialState, stream: name(0)) == StateCache.cost(of: FlowDecider.initialState) + 48 + 36)
        #expect(StateCache.cost(of: FlowDecider.initialState, stream: "session-123456") == StateCache.cost(of: FlowDecider.initialState))
    }

    /// A name leaves the cache's table with its state, the names after it moved back: a stream
    /// dropped long ago, or taken and put back, is found (or not) as it should be, through many
    /// growths of the table.
    @Test func streamsDroppedLongAgoComeBackAsNew() {
        var cache = StateCache(budget: 3 * StateCache.cost(of: FlowDecider.initialState))
        for index in 0..<5_000 { cache.put((FlowDecider.initialState, index), for: "u\(index)") }
        #expect(cache.count == 3 && cache["u0"] == nil && cache.take("u1") == nil && !cache.isPartial("u2"))
        #expect(cache["u4997"]?.version == 4_997 && cache["u4999"]?.version == 4_999)
        cache.put((FlowDecider.initialState, 7), for: "u0")
        #expect(cache.count == 3 && cache["u0"]?.version == 7 && cache["u4997"] == nil)
        let taken = cache.take("u4998")
        #expect(taken?.version == 4_998 && cache.count == 2 && cache["u4998"] == nil)
        cache.put(taken!, for: "u4998")
        cache.remove("u4999")
        #expect(cache.count == 2 && cache["u4998"]?.version == 4_998 && cache["u4999"] == nil && cache.cost <= cache.budget)
    }

    /// Random puts, takes and removes over more names than the cache holds, its table growing and
    /// names leaving it all along: a name is found with the version last put for it or not at all,
    /// never after it was taken, and the cache holds as many states as names it finds.
    @Test(arguments: [UInt64(7), 8, 9])
    func everyNameIsFoundWithItsLastStateOrNotAtAll(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var cache = StateCache(budget: 40 * StateCache.cost(of: FlowDecider.initialState))
        let names = (0..<300).map { "stream-\($0)" }
        var last: [String: Int] = [:]
        for step in 1...20_000 {
            let name = names.randomElement(using: &rng)!
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                cache.put((FlowDecider.initialState, step), for: name)
                last[name] = step
            case 6..<9:
                #expect(cache.take(name).map { $0.version == last[name] } ?? true)
                last[name] = nil
            default:
                cache.remove(name)
                last[name] = nil
            }
            if step % 500 == 0 {
                let found = names.filter { cache[$0] != nil }
                #expect(found.count == cache.count)
                #expect(found.allSatisfy { cache[$0]?.version == last[$0] })
                #expect(cache.count <= 40 && cache.cost <= cache.budget)
            }
        }
    }

    @Test func aStateThatFitsWholeIsKeptWhole() {
        var cache = StateCache(budget: 1 << 20)
        cache.keepsLatestRowOnly = true
        var state = FlowDecider.initialState
        for order in 0..<3 { FlowDecider.evolve(&state, .cart(.orderPlaced(.init(orderId: "o\(order)", total: 1, itemCount: 1)))) }
        cache.put((state, 3), for: "s")
        #expect(cache["s"]?.state.orders.orders.count == 3)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aProcessorWithATinyCacheAnswersAndAppendsAsOneThatKeepsEverything(seed: UInt64) throws {
        let streams = (0..<40).map { "s\($0)" }
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        let batches = (0..<60).map { _ in
            (0..<Int.random(in: 1...30, using: &rng)).map { _ in
                CommandEnvelope(stream: streams.randomElement(using: &rng)!, command: generator.command(using: &rng))
            }
        }
        func run(budget: Int) throws -> ([CommandOutcome], [RecordedEvent]) {
            let log = InMemoryEventLog()
            let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(), cacheBudget: budget)
            let outcomes = try batches.flatMap { try processor.handle($0) }
            return (outcomes, try log.events())
        }
        let (tinyAnswers, tinyEvents) = try run(budget: 4_096)
        let (answers, events) = try run(budget: 1 << 30)
        #expect(tinyAnswers == answers)
        #expect(tinyEvents == events)
    }
}
