import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogProjections
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

#if Network
    import FlowLogPostgres
#endif

/// `forget` (docs/spec.md §7) as every backend keeps it: one scenario per promise, run unchanged
/// against memory, LMDB and PostgreSQL. The rules are `ForgetRules`; each backend supplies only the
/// storage steps, and these tests are what holds the steps to the rules.
@Suite("Event log contract: forgetting a stream")
struct ForgetContractTests {
    private static let day: Int64 = 86_400_000_000
    private static let start = Timestamp(microseconds: 1_798_761_600_000_000)

    private static func event(
        _ event: AppEvent, at time: Timestamp = start, correlation: String? = nil, causation: String? = nil
    ) -> NewEvent {
        NewEvent(
            eventId: EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)), timestamp: time, actor: .user,
            correlationId: correlation, causationId: causation, event: event)
    }

    private static let modal = AppEvent.navigation(.modalPresented)
    private static let order = AppEvent.cart(.orderPlaced(.init(orderId: "order-7", total: 1_250, itemCount: 2)))

    private static func forgetting(_ log: any LogStore) throws -> any StreamForgetting {
        try #require(log.capabilities.forgetting)
    }

    /// The audit event `flowlog forget` appends, with a fixed id and time.
    private static func audit(reason: String) -> (ForgottenStream) -> NewEvent? {
        { forgotten in ErasureAudit.event(for: forgotten, reason: reason, key: nil, eventId: EventID(high: 0, low: 77), timestamp: start) }
    }

    /// A forgotten stream's records stay, in place and in the chain, with nothing of its data: no
    /// stream, ids or payload; its version, receipts and read-model state go; its kept rows stay
    /// without the stream, so totals add up; the audit trail gains one event in the same
    /// transaction; and every other stream is as it was.
    @Test(arguments: LogKind.allCases)
    func aForgottenStreamKeepsItsPlacesAndNothingOfItsData(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        _ = try log.append([
            AppendRequest(
                stream: "victim", expectedVersion: nil, commandId: "cmd-1",
                events: [Self.event(Self.modal, correlation: "c1", causation: "cmd-1"), Self.event(Self.order, correlation: "c1")]),
            AppendRequest(stream: "other", expectedVersion: nil, commandId: "cmd-2", events: [Self.event(Self.order)]),
            AppendRequest(stream: "victim", expectedVersion: nil, commandId: nil, events: [Self.event(Self.modal, correlation: "c2")]),
        ])
        let storage = StorageProjector(store: log)
        try ProjectionRunner(log: log).catchUp(storage)
        let otherBefore = try log.events(inStream: "other")

        let forgotten = try Self.forgetting(log).forget(streams: ["victim"], audit: Self.audit(reason: "ticket-42"))

        #expect(forgotten == [ForgottenStream(stream: "victim", events: 3, firstPosition: 1, lastPosition: 4, correlationIds: ["c1", "c2"])])
        #expect(try log.version(of: "victim") == 0)
        #expect(try log.events(inStream: "victim").isEmpty)
        #expect(try log.receipt(stream: "victim", commandId: "cmd-1") == nil)
        #expect(try log.receipt(stream: "other", commandId: "cmd-2") != nil)
        #expect(try log.events(inStream: "other") == otherBefore)
        #expect(try log.events().map(\.position) == [3, 5], "forgotten records are left out of reading")

        var records: [RecordedEvent] = []
        try Self.forgetting(log).forEachRecord(from: 1, through: nil) { record in
            records.append(record)
            return true
        }
        #expect(records.map(\.position) == [1, 2, 3, 4, 5])
        for record in [records[0], records[1], records[3]] {
            #expect(record.isForgotten && record.stream.isEmpty && record.correlationId == nil && record.causationId == nil)
        }
        #expect(records.map(\.version) == [1, 2, 1, 3, 1], "versions stay")
        #expect(records[1].event == EventKinds.info(of: Self.order).blankEvent, "the kind stays, its fields go")
        #expect(records[1].event != Self.order)

        let audit = try #require(records.last)
        #expect(audit.stream == SystemStreams.erasures && audit.eventId == EventID(high: 0, low: 77))
        #expect(audit.event == .system(.streamForgotten(.init(events: 3, reason: "ticket-42", pseudonym: nil))))

        let report = try log.checkIntegrity()
        #expect(report.isIntact && report.events == 5 && report.forgotten == 3, "\(report)")

        try ProjectionRunner(log: log).catchUp(storage)
        #expect(try log.readModelState(of: "victim")?.version == 0, "a stream without events")
        #expect(try log.readModelState(of: "other") != nil)
        let rows = try log.readModelRows(stream: nil)
        #expect(rows.map(\.stream).sorted() == ["", "other"], "the victim's order stays, without its stream")
        let kept = try #require(rows.first { $0.stream.isEmpty })
        #expect(kept.position == 2 && kept.row == KeptRow(LogDecider.anonymized(Order(orderId: "order-7", total: 1_250, itemCount: 2))))
    }

    /// A batch of streams is forgotten in one transaction: an unknown stream among them refuses
    /// the whole batch, and nothing changes; a stream forgotten before is unknown too.
    @Test(arguments: LogKind.allCases)
    func aBatchWithAnUnknownStreamForgetsNothing(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        _ = try log.append([
            AppendRequest(stream: "a", expectedVersion: nil, commandId: nil, events: [Self.event(Self.modal), Self.event(Self.modal)]),
            AppendRequest(stream: "b", expectedVersion: nil, commandId: nil, events: [Self.event(Self.modal)]),
        ])
        let forgetting = try Self.forgetting(log)
        #expect(throws: ForgetRefusal.unknownStream("nobody", location: log.location)) {
            try forgetting.forget(streams: ["a", "nobody"], audit: Self.audit(reason: "r"))
        }
        #expect(try log.version(of: "a") == 2)
        #expect(try log.lastPosition() == 3, "no audit event either")
        #expect(try log.checkIntegrity().forgotten == 0)

        #expect(try forgetting.forget(streams: ["a", "b"]).map(\.events) == [2, 1])
        #expect(try log.streams().isEmpty)
        #expect(throws: ForgetRefusal.unknownStream("a", location: log.location)) { try forgetting.forget(stream: "a") }
    }

    /// A stream appended to after its forget starts anew at version 1, and the chain still holds.
    @Test(arguments: LogKind.allCases)
    func aStreamAppendedAfterItsForgetStartsAnew(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        _ = try log.append([AppendRequest(stream: "s", expectedVersion: nil, commandId: "c1", events: [Self.event(Self.modal)])])
        _ = try Self.forgetting(log).forget(stream: "s")
        let again = try log.append([AppendRequest(stream: "s", expectedVersion: 0, commandId: "c1", events: [Self.event(Self.modal)])])
        #expect(again == [.appended(CommandReceipt(firstPosition: 2, eventCount: 1, version: 1))], "the old receipt went with the stream")
        #expect(try log.events(inStream: "s").map(\.position) == [2])
        let report = try log.checkIntegrity()
        #expect(report.isIntact && report.events == 2 && report.forgotten == 1)
    }

    /// `retain`'s batch: with a cutoff, a stream whose last event is not before it, or that is gone,
    /// is left out without refusing; the old one is forgotten.
    @Test(arguments: LogKind.allCases)
    func theCutoffLeavesYoungAndGoneStreamsOut(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        let later = Timestamp(microseconds: Self.start.microseconds + 10 * Self.day)
        _ = try log.append([
            AppendRequest(stream: "old", expectedVersion: nil, commandId: nil, events: [Self.event(Self.modal)]),
            AppendRequest(stream: "young", expectedVersion: nil, commandId: nil, events: [Self.event(Self.modal)]),
            AppendRequest(stream: "young", expectedVersion: nil, commandId: nil, events: [Self.event(Self.modal, at: later)]),
        ])
        let cutoff = Timestamp(microseconds: Self.start.microseconds + Self.day)
        let forgotten = try Self.forgetting(log).forget(streams: ["old", "young", "gone"], lastEventBefore: cutoff) { _ in nil }
        #expect(forgotten.map(\.stream) == ["old"])
        #expect(try log.version(of: "young") == 2 && log.version(of: "old") == 0)
    }

    /// Below log schema 3 records cannot be forgotten without breaking the chain: every backend
    /// refuses, names `flowlog upgrade`, and changes nothing.
    @Test(arguments: LogKind.allCases)
    func aLogOfTheWholeLayoutRefuses(kind: LogKind) throws {
        let (log, keep) = try Self.olderLog(kind)
        defer { withExtendedLifetime(keep) {} }
        let before = try log.lastPosition()
        let stream = try #require(try log.streams().first).stream
        let refusal = ForgetRefusal.upgradeRequired(location: log.location, logSchema: try log.settings().logSchema)
        #expect(throws: refusal) { try Self.forgetting(log).forget(stream: stream) }
        #expect(refusal.description.contains("flowlog upgrade"))
        #expect(try log.lastPosition() == before && log.version(of: stream) > 0)
    }

    /// A log with events at a log schema below 3, of each backend: memory made so, LMDB the
    /// schema-1 fixture (copied), PostgreSQL a schema its meta row sets back to 2.
    private static func olderLog(_ kind: LogKind) throws -> (any LogStore, AnyObject?) {
        let events = [AppendRequest(stream: "s", expectedVersion: nil, commandId: nil, events: [event(modal)])]
        switch kind {
        case .memory:
            let log = InMemoryEventLog(settings: LogSettings(logSchema: 2, defaultCurrency: "USD"))
            _ = try log.append(events)
            return (log, nil)
        case .lmdb:
            let folder = TemporaryDirectory()
            let copy = folder.child("log.lmdb")
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs/schema-1/data.mdb")
            try FileManager.default.copyItem(atPath: fixture.path, toPath: copy + "/data.mdb")
            return (try LMDBEventLog(path: copy), folder)
        #if Network
            case .postgres:
                let server = PostgresServer.shared
                let schema = server.freshName("older")
                let log = try PostgresEventLog.open(url: server.url(schema: schema), access: .readWriteCreating)
                _ = try server.psql("UPDATE \(schema).meta SET value = '2' WHERE key = 'schema'")
                _ = try log.append(events)
                return (log, nil)
        #endif
        }
    }
}
