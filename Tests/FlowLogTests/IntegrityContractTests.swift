import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog
@testable import FlowLogHistory

/// What `checkIntegrity` (`flowlog verify`, the `IntegrityChecking` capability) promises on every
/// backend about a log no one damaged: intact, and counting what the log itself reads — its
/// records, its streams, its forgotten records — the same on every backend for the same log.
/// Damage comes from outside a backend, and each kind's own suite makes it: LMDB's
/// `IntegrityTests`, `IntegrityBatchTests` and `DamagedFileTests`, PostgreSQL's `PostgresLogTests`.
@Suite("Event log contract: integrity")
struct IntegrityContractTests {
    /// The report's counts, for comparing backends.
    private static func counts(_ report: IntegrityReport) -> [Int] {
        [report.events, report.forgotten, report.streams, report.problems.count, report.unlistedProblems, report.newer.count]
    }

    /// The streams of the records the log reads (forgotten ones read as no stream).
    private static func streamsRead(_ log: any LogStore) throws -> Set<String> {
        Set(try log.events().map(\.stream))
    }

    @Test(arguments: LogKind.allCases)
    func anEmptyLogIsIntactAndCountsNothing(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        defer { withExtendedLifetime(fixture) {} }
        let report = try fixture.log.checkIntegrity()
        #expect(report.isIntact && report.isReadable, "\(report.problems) \(report.newer)")
        #expect(Self.counts(report) == [0, 0, 0, 0, 0, 0])
    }

    /// A log filled through the pipeline (snapshots, fingerprints, receipts, a projection and a
    /// tracker's checkpoint beside the events) and by plain appends is intact, and counts its own
    /// events and streams, as the memory log given the same commands counts them. Checking writes
    /// nothing: the log answers as before, and a second check reports the same.
    @Test(arguments: LogKind.allCases)
    func anUntouchedLogCountsItsEventsAndStreamsAsEveryBackendDoes(kind: LogKind) throws {
        let stored = try StoredLog(kind)
        let log = try stored.open()
        let commands = try StoredLogFilling.fill(log)
        _ = try log.append([
            AppendRequest(stream: "plain", expectedVersion: 0, commandId: "p1", events: Self.modals(2)),
            AppendRequest(stream: "a", expectedVersion: nil, commandId: nil, events: Self.modals(1)),
        ])
        let before = try LogAnswers(of: log, commands: commands)
        let report = try log.checkIntegrity()
        #expect(report.isIntact && report.isReadable, "\(report.problems) \(report.newer)")
        #expect(try report.events == log.lastPosition() && report.events > 150)
        #expect(try report.streams == Self.streamsRead(log).count && report.streams == 4)
        #expect(report.forgotten == 0)
        #expect(Self.counts(try log.checkIntegrity()) == Self.counts(report), "a second check reports the same")
        #expect(try LogAnswers(of: log, commands: commands) == before, "checking changed nothing")

        let memory = InMemoryEventLog()
        _ = try StoredLogFilling.fill(memory)
        _ = try memory.append([
            AppendRequest(stream: "plain", expectedVersion: 0, commandId: "p1", events: Self.modals(2)),
            AppendRequest(stream: "a", expectedVersion: nil, commandId: nil, events: Self.modals(1)),
        ])
        #expect(Self.counts(report) == Self.counts(try memory.checkIntegrity()), "the same log counts the same on every backend")
    }

    /// Thousands of streams (past what one page of a walk or a batch of index checks holds) are
    /// each counted once.
    @Test(arguments: LogKind.allCases)
    func manyStreamsAreEachCountedOnce(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let add = AppCommand.cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1)))
        _ = try processor.handle((0..<2_500).map { CommandEnvelope(stream: "s-\($0)", command: add) })
        _ = try processor.handle((0..<500).map { CommandEnvelope(stream: "s-\($0 * 3)", command: add) })
        let report = try log.checkIntegrity()
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.events == 3_000 && report.streams == 2_500 && report.forgotten == 0)
    }

    /// Forgotten records are counted as events and as forgotten, and their stream no longer as a
    /// stream; the audit trail's stream is one like any other. A stream written again after its
    /// forget counts again, and the forgotten records of a second forget add up.
    @Test(arguments: LogKind.allCases)
    func forgottenRecordsAreCountedApartFromStreams(kind: LogKind) throws {
        let stored = try StoredLog(kind)
        let log = try stored.open()
        _ = try StoredLogFilling.fill(log)
        let forgetting = try #require(log.capabilities.forgetting, "every backend forgets")
        func forgottenRecords() throws -> Int {
            var count = 0
            try forgetting.forEachRecord(from: 1, through: nil) {
                if $0.isForgotten { count += 1 }
                return true
            }
            return count
        }
        let versionOfB = try log.version(of: "b")
        let audit: (ForgottenStream) -> NewEvent? = { forgotten in
            ErasureAudit.event(
                for: forgotten, reason: "contract", key: nil, eventId: EventID(high: 7, low: 7), timestamp: Timestamp(microseconds: 1))
        }
        let first = try forgetting.forget(streams: ["b"], audit: audit)
        #expect(first.map(\.events) == [versionOfB] && versionOfB > 0)
        var report = try log.checkIntegrity()
        #expect(report.isIntact, "\(report.problems)")
        #expect(try report.forgotten == versionOfB && report.forgotten == forgottenRecords())
        #expect(try report.events == log.lastPosition())
        #expect(try Self.streamsRead(log) == ["a", "c", SystemStreams.erasures])
        #expect(report.streams == 3, "a, c and the audit trail; b no longer")

        _ = try log.append([AppendRequest(stream: "b", expectedVersion: 0, commandId: nil, events: Self.modals(2))])
        let second = try forgetting.forget(streams: ["c"])
        report = try log.checkIntegrity()
        #expect(report.isIntact, "\(report.problems)")
        #expect(try report.forgotten == versionOfB + second[0].events && report.forgotten == forgottenRecords())
        #expect(try report.events == log.lastPosition())
        #expect(report.streams == 3, "a, b anew and the audit trail")
        #expect(try ReplayVerifier.verifyFingerprints(of: log).forgotten == report.forgotten)
    }

    private static func modals(_ count: Int) -> [NewEvent] {
        (0..<count).map { _ in
            NewEvent(
                eventId: EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)), timestamp: Timestamp(microseconds: 1),
                actor: .user, event: .navigation(.modalPresented))
        }
    }
}
