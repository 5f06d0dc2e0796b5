import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog
@testable import FlowLogHistory
@testable import FlowLogProjections

/// The capabilities beyond appending and reading, each a small protocol, checked against every
/// kind of log as the append rules are.
@Suite("Event log contract: capabilities")
struct CapabilityContractTests {
    /// A log that three streams filled through the pipeline (so fingerprints and snapshots are recorded).
    private func filled(_ kind: LogKind, interval: Int = 7) throws -> LogFixture {
        let fixture = try LogFixture(kind)
        try fixture.log.setSnapshotInterval(interval)
        var rng = SplitMix64(seed: 21)
        let generator = RandomCommands()
        let processor = CommandProcessor(log: fixture.log, clock: SteppingClock(), ids: SequentialIDGenerator())
        while try fixture.log.lastPosition() < 150 {
            _ = try processor.handle([CommandEnvelope(stream: ["a", "b", "c"].randomElement(using: &rng)!, command: generator.command(using: &rng))])
        }
        return fixture
    }

    /// What each backend states it offers beyond the contract (`LogCapabilities`), and that what it
    /// states is itself: a feature that asks gets the log, not a copy or another object.
    @Test(arguments: LogKind.allCases)
    func eachBackendStatesItsCapabilities(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let offered = fixture.log.capabilities
        let expected: (batch: Bool, deferred: Bool, backup: Bool) =
            switch kind {
            case .lmdb: (false, false, true)
            case .memory: (false, false, false)
            #if Network
                case .postgres: (true, true, false)
            #endif
            }
        #expect(offered.snapshots === fixture.log as AnyObject, "every backend keeps snapshots")
        #expect(offered.following === fixture.log as AnyObject, "every backend can be followed")
        #expect((offered.batchReading != nil) == expected.batch)
        #expect((offered.deferredCommits != nil) == expected.deferred)
        #expect((offered.backup != nil) == expected.backup)
        // Every backend forgets a stream (refusing below log schema 3): `ForgetContractTests`.
        #expect(offered.forgetting != nil)
        // The command processor learns the log's snapshot interval from it.
        try fixture.log.setSnapshotInterval(11)
        #expect(try offered.snapshots?.snapshotInterval() == 11)
    }

    @Test(arguments: LogKind.allCases)
    func streamsAndVersionsAgreeWithTheEvents(kind: LogKind) throws {
        let fixture = try filled(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let events = try log.events()
        let streams = try log.streams()
        #expect(streams.map(\.stream) == ["a", "b", "c"])
        for (stream, version) in streams {
            let own = events.filter { $0.stream == stream }
            #expect(own.count == version)
            #expect(try log.event(inStream: stream, version: version) == own.last)
            #expect(try log.event(inStream: stream, version: version + 1) == nil)
        }
    }

    /// A snapshot only shortens the fold: the state at every position is the replayed one.
    @Test(arguments: LogKind.allCases)
    func snapshotsAreTakenAndNeverChangeAState(kind: LogKind) throws {
        let fixture = try filled(kind, interval: 5)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        #expect(try log.snapshotInterval() == 5)
        #expect(try log.snapshotCount() > 0)
        for position in stride(from: 0, through: try log.lastPosition(), by: 9) {
            for stream in ["a", "b", "c"] {
                let fast = try log.state(ofStream: stream, throughPosition: position)
                let slow = try log.replayedState(ofStream: stream, throughPosition: position)
                #expect(fast.state == slow.state && fast.version == slow.version, "\(stream) at \(position)")
            }
        }
    }

    @Test(arguments: LogKind.allCases)
    func recordedFingerprintsAgreeWithAReplay(kind: LogKind) throws {
        let fixture = try filled(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let report = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(report.events == 150 || report.events > 150)
        #expect(report.comparisons == report.events)
        #expect(report.disagreements.isEmpty)
    }

    /// Both walks of `replay --summary` and `--verify` (position order, stream by stream) give the
    /// same states, counts and disagreements, forgotten streams left out of both.
    @Test(arguments: LogKind.allCases)
    func theWalkStreamByStreamAgreesWithTheWalkInPositionOrder(kind: LogKind) throws {
        let fixture = try filled(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        _ = try #require(log.capabilities.forgetting).forget(streams: ["b"], lastEventBefore: nil) { _ in nil }
        func summaries(limit: Int) throws -> [String] {
            var lines: [String] = []
            try StreamSummaries.forEachFinalState(of: log, positionWalkLimit: limit) { lines.append("\($0.stream) \($0.version) \($0.state)") }
            return lines
        }
        let inPositionOrder = try summaries(limit: .max)
        #expect(try summaries(limit: 0) == inPositionOrder)
        // A walk in position order whose states are projected past the budget goes stream by stream.
        var overBudget: [String] = []
        try StreamSummaries.forEachFinalState(of: log, positionWalkLimit: .max, positionWalkBudget: 1) {
            overBudget.append("\($0.stream) \($0.version) \($0.state)")
        }
        #expect(overBudget == inPositionOrder)
        #expect(try StreamSummaries.finalStates(of: log, progress: nil, shown: .rows, budget: 1, events: log.lastPosition()) == nil)
        #expect(inPositionOrder.count == 2, "a and c: b was forgotten")
        // A reducer that forgets every discount disagrees with what was recorded, in both walks alike.
        let broken: (inout LogDecider.State, LogDecider.Event) -> Void = { state, event in
            if event.typeName == "cart.discountApplied" { return }
            LogDecider.evolve(&state, event)
        }
        for evolve in [LogDecider.evolve, broken] {
            let positional = try ReplayVerifier.verifyFingerprints(of: log, positionWalkLimit: .max, evolve: evolve)
            let byStream = try ReplayVerifier.verifyFingerprints(of: log, positionWalkLimit: 0, evolve: evolve)
            #expect(byStream.streams == positional.streams && byStream.events == positional.events)
            #expect(byStream.comparisons == positional.comparisons && byStream.forgotten == positional.forgotten)
            #expect(byStream.disagreements.map { "\($0.stream)@\($0.position)" } == positional.disagreements.map { "\($0.stream)@\($0.position)" })
        }
        #expect(try ReplayVerifier.verifyFingerprints(of: log, positionWalkLimit: 0, evolve: broken).disagreements.isEmpty == false)
    }

    /// The stream table is walked a page at a time, from any id, in byte order, stopping when asked.
    @Test(arguments: LogKind.allCases)
    func theStreamsAreWalkedInPagesFromAnyId(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let names = (0..<2_100).map { "s-\($0)" } + ["S-upper", "s-0a"]
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        _ = try processor.handle(
            names.map { CommandEnvelope(stream: $0, command: .cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1)))) })
        let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(try log.streams().map(\.stream) == sorted)
        #expect(try log.streams().allSatisfy { $0.version == 1 })
        var from: [String] = []
        try log.forEachStream(from: "s-1500") { stream, _ in
            from.append(stream)
            return from.count < 1_200
        }
        #expect(from == Array(sorted.drop { $0.utf8.lexicographicallyPrecedes("s-1500".utf8) }.prefix(1_200)))
        var count = 0
        try log.forEachStream(from: "") { _, _ in
            count += 1
            return true
        }
        #expect(count == names.count)
        // The listings a backend reads in one statement a page are those read by lookups.
        var listed: [StreamListing] = []
        var lookedUp: [StreamListing] = []
        try log.forEachStreamListing(from: "s-1500") {
            listed.append($0)
            return listed.count < 1_200
        }
        try log.forEachStreamListingByLookup(from: "s-1500") {
            lookedUp.append($0)
            return lookedUp.count < 1_200
        }
        #expect(listed == lookedUp && listed.map(\.stream) == from)
        #expect(listed.allSatisfy { $0.firstPosition == $0.lastPosition && $0.version == 1 })
    }

    @Test(arguments: LogKind.allCases)
    func checkpointsRewindAndKeepWhatWasAcknowledged(kind: LogKind) throws {
        let fixture = try filled(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        #expect(try log.checkpoint(of: "tracker.x") == 0)
        try log.setCheckpoint(40, of: "tracker.x")
        try log.setProjectionStatus("tracker.x", failure: "collector down")
        let status = try log.projectionStatus(of: ["tracker.x"])[0]
        let last = try log.lastPosition()
        #expect(status.checkpoint == 40 && status.lag == last - 40 && status.failure == "collector down")
        try log.rewindTracker("tracker.x", resending: false)
        #expect(try log.checkpoint(of: "tracker.x") == 0)
        #expect(try log.acknowledgedPosition(of: "tracker.x") == 40)
        try log.rewindTracker("tracker.x", resending: true)
        #expect(try log.acknowledgedPosition(of: "tracker.x") == 0)
    }

    @Test(arguments: LogKind.allCases)
    func aProjectorHasOneRunnerAtATime(kind: LogKind) throws {
        let fixture = try filled(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        var lease: (any ProjectorLease)? = try log.leaseProjector("storage")
        #expect(throws: FlowLogError.self) { try log.leaseProjector("storage") }
        _ = try log.leaseProjector("tracker.x")
        withExtendedLifetime(lease) {}
        lease = nil
        _ = try log.leaseProjector("storage")
    }

    /// Exactly once: read models caught up in several runs equal a fold of the whole log.
    @Test(arguments: LogKind.allCases)
    func readModelsEqualAReplay(kind: LogKind) throws {
        let fixture = try filled(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let storage = StorageProjector(store: log)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 17
        #expect(try storage.currentState(of: "a") == nil)
        try runner.catchUp(storage)
        for stream in ["a", "b", "c"] {
            let replayed = try log.replayedState(ofStream: stream)
            let read = try #require(try storage.currentState(of: stream))
            #expect(read.state == replayed.state && read.version == replayed.version)
            let flag = try storage.hasOnboarded(stream: stream)
            #expect(flag == nil || flag == replayed.state.navigation.hasOnboarded)
            #expect(try storage.orders(stream: stream).map(\.order) == replayed.state.orders.orders)
        }
        let before = try storage.dump()
        try storage.reset()
        #expect(try storage.checkpoint() == 0)
        try runner.catchUp(storage)
        #expect(try storage.dump() == before)
    }

    /// A runner whose lease is no longer its own projects nothing more and leaves the projector's
    /// status to its new runner.
    @Test(arguments: LogKind.allCases)
    func aRunnerThatLostItsLeaseProjectsNothing(kind: LogKind) throws {
        let fixture = try filled(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let storage = StorageProjector(store: log)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 5
        var batches = 0
        runner.holdsLease = { name in
            #expect(name == storage.name)
            batches += 1
            return batches <= 1
        }
        #expect(throws: FlowLogError.busy(ProjectorBusy(projector: storage.name, pid: nil, lost: true))) { try runner.catchUp(storage) }
        #expect(try storage.checkpoint() == 5, "the first batch, held under the lease, and nothing after it")
        #expect(try log.projectionStatus(of: [storage.name]).first?.failure == nil)
    }

    /// Export, import into an empty log of the same kind: the same events, ids and states.
    @Test(arguments: LogKind.allCases)
    func anImportedExportIsTheSameLog(kind: LogKind) throws {
        let fixture = try filled(kind)
        let source = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let target = try LogFixture(kind)
        let events = try source.events()
        let count = try target.log.importEvents { sink in
            for (index, event) in events.enumerated() { try sink.add(event, line: index + 1) }
        }
        #expect(count == events.count)
        #expect(try target.log.events() == events)
        #expect(try target.log.streams().map(\.version) == source.streams().map(\.version))
        #expect(try ReplayVerifier.verifyFingerprints(of: target.log).disagreements.isEmpty)
    }

    @Test(arguments: LogKind.allCases)
    func aRefusedImportImportsNothing(kind: LogKind) throws {
        let fixture = try filled(kind)
        let source = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let target = try LogFixture(kind)
        var events = try source.events()
        events[100].position = 102
        #expect(throws: FlowLogError.self) {
            try target.log.importEvents { sink in
                for (index, event) in events.enumerated() { try sink.add(event, line: index + 1) }
            }
        }
        #expect(try target.log.lastPosition() == 0)
        #expect(try target.log.streams().isEmpty)
    }
}
