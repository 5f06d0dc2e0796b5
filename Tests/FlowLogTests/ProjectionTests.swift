import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog
@testable import FlowLogProjections

/// A log of eight streams with orders, written through the pipeline.
private func busyLog(in folder: TemporaryDirectory, commands: Int = 4_000, seed: UInt64 = 21) throws -> LMDBEventLog {
    let log = try LMDBEventLog(path: folder.child("log"))
    var rng = SplitMix64(seed: seed)
    let generator = RandomCommands()
    let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
    _ = try processor.handle(
        (0..<commands).map { _ in CommandEnvelope(stream: "s\(Int.random(in: 0..<8, using: &rng))", command: generator.command(using: &rng)) })
    return log
}

/// A sink that fails its first `failures` deliveries, then records what it is given.
private final class FlakySink: TrackerSink {
    var failures: Int
    private(set) var delivered: [TrackerMessage] = []
    init(failures: Int) { self.failures = failures }
    func deliver(_ messages: [TrackerMessage], of service: any AnalyticsService, done: (Int) throws -> Void) throws {
        if failures > 0 {
            failures -= 1
            throw FlowLogError.input("collector unavailable")
        }
        delivered += messages
    }
}

/// Every message a service makes for the whole log, folded in order as a tracker that never stopped would.
private func expectedMessages(_ service: any AnalyticsService, _ log: any EventLog) throws -> [TrackerMessage] {
    var states: [String: StreamAnalyticsState] = [:]
    var messages: [TrackerMessage] = []
    for record in try log.events() {
        let before = states[record.stream] ?? StreamAnalyticsState()
        messages += service.messages(for: TrackedEvent(record: record, before: before))
        var after = before
        after.apply(record)
        states[record.stream] = after
    }
    return messages
}

private let library = LibraryInfo(version: "test")

@Suite("Projections")
struct ProjectionTests {
    @Test func storageReadModelsEqualAFullReplay() throws {
        let folder = TemporaryDirectory()
        let log = try busyLog(in: folder)
        let storage = StorageProjector(store: log)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 333
        #expect(try runner.catchUp(storage) == (try log.lastPosition()))
        var allOrders: [String] = []
        for (stream, _) in try log.streams() {
            let replayed = try log.replayedState(ofStream: stream)
            let stored = try storage.currentState(of: stream)
            #expect(stored?.state == replayed.state && stored?.version == replayed.version, "stream \(stream)")
            let navigated = try log.events(inStream: stream).contains { if case .navigation = $0.event { true } else { false } }
            #expect(try storage.hasOnboarded(stream: stream) == (navigated ? replayed.state.navigation.hasOnboarded : nil), "stream \(stream)")
            allOrders += replayed.state.orders.orders.map { "\(stream)/\($0.orderId)/\($0.total)" }
        }
        let listed = try storage.orders().map { "\($0.stream)/\($0.order.orderId)/\($0.order.total)" }
        #expect(Set(listed) == Set(allOrders))
        #expect(listed.count == allOrders.count)
        #expect(!allOrders.isEmpty)
    }

    @Test func readModelsAreNotCurrentUntilCaughtUp() throws {
        let folder = TemporaryDirectory()
        let log = try busyLog(in: folder, commands: 200)
        let storage = StorageProjector(store: log)
        #expect(try storage.currentState(of: "s1") == nil)
        try ProjectionRunner(log: log).catchUp(storage)
        #expect(try storage.currentState(of: "s1") != nil)
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1 << 40))
            .handle(CommandEnvelope(stream: "s1", command: .app(.launched(.init(hasOnboarded: true)))))
        #expect(try storage.currentState(of: "s1") == nil, "one more event: the read model is behind, so callers replay")
    }

    @Test func aRebuildReproducesByteIdenticalReadModels() throws {
        let folder = TemporaryDirectory()
        let log = try busyLog(in: folder)
        let storage = StorageProjector(store: log)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 1_000
        try runner.catchUp(storage)
        let before = try storage.dump()
        try storage.reset()
        #expect(try storage.checkpoint() == 0)
        runner.batchSize = 77
        try runner.catchUp(storage)
        #expect(try storage.dump() == before)
        #expect(before.count > 1_000)
    }

    @Test func projectionStoppedAtAnyBatchResumesToTheSameReadModels() throws {
        let folder = TemporaryDirectory()
        let log = try busyLog(in: folder)
        var rng = SplitMix64(seed: 5)
        var runner = ProjectionRunner(log: log)
        // A crash between two transactions leaves the read models at the last checkpoint; a new
        // projector picks up from there.
        var position = 0
        while position < (try log.lastPosition()) {
            let events = try log.events(from: position + 1, limit: Int.random(in: 1...500, using: &rng))
            try StorageProjector(store: log).project(events)
            position = events.last!.position
        }
        let resumed = try StorageProjector(store: log).dump()
        try StorageProjector(store: log).reset()
        runner.batchSize = 4_096
        try runner.catchUp(StorageProjector(store: log))
        #expect(try StorageProjector(store: log).dump() == resumed)
    }

    @Test func trackerMessagesCarryEventIdsAndSurviveAFailingCollector() throws {
        let folder = TemporaryDirectory()
        let log = try busyLog(in: folder, commands: 1_500)
        let sink = FlakySink(failures: 3)
        let tracker = TrackerProjector(service: SegmentService(library: library), sink: sink, log: log)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 200
        for _ in 0..<3 {
            #expect(throws: FlowLogError.input("collector unavailable")) { try runner.catchUp(tracker) }
            #expect(try tracker.checkpoint() == 0, "a failing sink never moves the checkpoint past undelivered messages")
            #expect(try log.projectionStatus(of: ["tracker.segment"]).first?.failure?.contains("collector unavailable") == true)
        }
        try runner.catchUp(tracker)
        #expect(try log.projectionStatus(of: ["tracker.segment"]).first?.failure == nil)
        #expect(try tracker.checkpoint() == (try log.lastPosition()))
        // Every event's messages, in log order, once, with ids made from the event ids; and each
        // message as a tracker that never failed (its streams' states rebuilt from the log) makes it.
        let expected = try expectedMessages(SegmentService(library: library), log)
        #expect(sink.delivered == expected)
        #expect(Set(sink.delivered.map(\.id)).count == expected.count)
        #expect(expected.count >= (try log.lastPosition()), "every event gives at least one message")
    }

    /// A stream's first event has nothing before it, so a tracker reads no stream for it; the
    /// streams it met stay cached, and it sends what a fold of the whole log gives.
    @Test func aTrackerReadsNoStreamForAStreamsFirstEvent() throws {
        let log = StreamReadCounter()
        var rng = SplitMix64(seed: 5)
        let generator = RandomCommands()
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            .handle((0..<300).map { _ in CommandEnvelope(stream: "s\(Int.random(in: 0..<8, using: &rng))", command: generator.command(using: &rng)) })
        let readsToDecide = log.streamReads
        #expect(try log.lastPosition() > 20)
        let sink = FlakySink(failures: 0)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 50
        try runner.catchUp(TrackerProjector(service: GA4Service(), sink: sink, log: log))
        #expect(log.streamReads == readsToDecide)
        #expect(sink.delivered == (try expectedMessages(GA4Service(), log)))
    }

    /// The sessions still going keep their states while many others come and go: a tracker holds
    /// two generations of states, and reads no stream of a session that stays open past
    /// `statesPerGeneration` other sessions.
    @Test func aTrackerKeepsTheStatesOfSessionsStillGoing() throws {
        let log = StreamReadCounter()
        // Three long sessions, each with a command after every 100 sessions of one command.
        var commands: [CommandEnvelope] = []
        for session in 0..<(TrackerProjector.statesPerGeneration * 3) {
            func product(_ id: Int) -> CartCommand { .addProduct(.init(productId: "p\(id)", name: nil, unitPrice: 100, quantity: 1)) }
            commands.append(CommandEnvelope(stream: "short-\(session)", command: .cart(product(0))))
            if session % 100 == 0 {
                for long in 0..<3 { commands.append(CommandEnvelope(stream: "long-\(long)", command: .cart(product(session / 100 % 50)))) }
            }
        }
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        for part in stride(from: 0, to: commands.count, by: 2_000) {
            _ = try processor.handle(Array(commands[part..<min(part + 2_000, commands.count)]))
        }
        #expect(try log.lastPosition() == commands.count)
        let readsToDecide = log.streamReads
        let sink = FlakySink(failures: 0)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 500
        let tracker = TrackerProjector(service: GA4Service(), sink: sink, log: log)
        try runner.catchUp(tracker)
        #expect(log.streamReads == readsToDecide)
        #expect(tracker.heldStates <= TrackerProjector.statesPerGeneration * 2, "15,000 sessions, two generations held")
        #expect(sink.delivered == (try expectedMessages(GA4Service(), log)))
    }

    @Test func redeliveryAfterACrashIsOnlyDuplicatesWithTheSameMessages() throws {
        let folder = TemporaryDirectory()
        let log = try busyLog(in: folder, commands: 1_500)
        let sink = FlakySink(failures: 0)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 100
        let tracker = TrackerProjector(service: GA4Service(), sink: sink, log: log)
        try runner.catchUp(tracker)
        // The process died after delivering but before the checkpoint was written: back it up.
        try log.setCheckpoint(try log.lastPosition() / 2, of: tracker.name)
        // A new process: its tracker starts without the streams' states and rebuilds them.
        try runner.catchUp(TrackerProjector(service: GA4Service(), sink: sink, log: log))
        #expect(sink.delivered.count > Set(sink.delivered.map(\.id)).count, "some messages were delivered twice")
        var seen = Set<String>()
        let deduplicated = sink.delivered.filter { seen.insert($0.id).inserted }
        #expect(deduplicated == (try expectedMessages(GA4Service(), log)), "the resent messages are byte for byte the first ones")
    }

    @Test func viewsHoldOnlyDisplayValuesThatMatchTheState() throws {
        let scenario = DeciderScenario.given(commands: [
            .app(.launched(.init(hasOnboarded: true))), .home(.selectTab(.init(tab: 1))),
            .cart(.addProduct(.init(productId: "p1", name: "Mug", unitPrice: 1250, quantity: 2))),
            .cart(.applyDiscount(.init(discountId: "D", percent: 10, productId: "p1"))),
            .cart(.checkout),
        ])
        let cart = ViewProjector.cart(scenario.state)
        #expect(
            cart.rows == [
                CartViewConfiguration.Row(
                    title: "Mug", quantityText: "2 × 12.50", amountText: "25.00", discountText: "-10% (D)", finalAmountText: "22.50")
            ])
        #expect(cart.totalText == "Total 22.50")
        #expect(!cart.isCheckoutEnabled)
        #expect(cart.statusText == "Waiting for the payment provider to confirm 22.50.")
        let screen = ViewProjector.screen(scenario.state.navigation)
        #expect(screen.title == "Orders")
        #expect(screen.selectedTab == 1)
        #expect(ViewProjector.cart(FlowState()).isCheckoutEnabled == false)
        #expect(
            ViewProjector.cart(
                DeciderScenario.given(commands: [.cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 1, quantity: 1)))]).state
            ).isCheckoutEnabled)
        // The JSON face: only strings, numbers, booleans, null, and arrays and objects of those.
        var json = JSONWriter()
        ViewProjector.writeJSON(cart: cart, screen: screen, stream: "s", version: 5, into: &json)
        let value = try JSONParser.parse(json.text)
        #expect(value["cart"]?["totalText"] == .string("Total 22.50"))
        #expect(value["screen"]?["tabTitles"] == .array([.string("Shop"), .string("Orders")]))
    }
}

@Suite("Tracker files")
struct TrackerFileTests {
    @Test func aTornLastLineIsCutBeforeTheNextDelivery() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("calls.ndjson")
        try "{\"a\":1}\n{\"b\":".write(toFile: path, atomically: true, encoding: .utf8)
        let message = TrackerMessage(position: 1, id: "m1", client: "s", timestampMicros: 0, bytes: Array("{\"c\":3}".utf8))
        try NDJSONFileSink(path: path).deliver([message], of: SegmentService(library: library)) { _ in }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"a\":1}\n{\"c\":3}\n")
    }
}

@Suite("Following the log")
struct FollowTests {
    @Test func theRunnerFollowsNewAppendsUntilToldToStop() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let storage = StorageProjector(store: log)
        var rounds = 0
        try ProjectionRunner(log: log).follow([storage], pollEvery: 0.001) {
            rounds += 1
            if rounds <= 3 {
                // Another writer appends while the runner follows.
                _ = try? processor.handle(
                    CommandEnvelope(stream: "s", command: .cart(.addProduct(.init(productId: "p\(rounds)", name: nil, unitPrice: 1, quantity: 1)))))
                return false
            }
            return (try? storage.checkpoint()) == (try? log.lastPosition())
        }
        #expect(try storage.checkpoint() == 3)
        #expect(try storage.currentState(of: "s")?.state.cart.lines.count == 3)
    }
}

@Suite("Concurrent projection")
struct ConcurrentProjectionTests {
    @Test func twoStorageProjectorsOnOneLogNeverApplyAnEventTwice() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            .handle(
                (1...50).map {
                    CommandEnvelope(stream: "s", command: .cart(.addProduct(.init(productId: "p\($0 % 5)", name: nil, unitPrice: 1, quantity: 1))))
                })
        let events = try log.events()
        // Both read the same checkpoint (0) and try the same events: the second must skip them.
        try StorageProjector(store: log).project(Array(events[0..<30]))
        try StorageProjector(store: log).project(Array(events[0..<40]))
        try StorageProjector(store: log).project(Array(events[40...]))
        #expect(try StorageProjector(store: log).currentState(of: "s")?.state == (try log.replayedState(ofStream: "s").state))
    }
}

/// Counts the reads of one stream's events (`forEachEvent(inStream:)`).
private final class StreamReadCounter: ForwardingEventLog, @unchecked Sendable {
    private(set) var streamReads = 0

    override func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        streamReads += 1
        try super.forEachEvent(inStream: stream, throughPosition: throughPosition, body)
    }
}
