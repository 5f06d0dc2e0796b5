import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

#if Network
    import FlowLogPostgres
#endif

/// The contract every backend keeps, and the suite that checks it: each test runs, unchanged,
/// against every kind of log. A new backend is a new case here.
enum LogKind: String, CaseIterable, CustomTestStringConvertible {
    #if Network
        case lmdb, memory, postgres
    #else
        case lmdb, memory
    #endif
    var testDescription: String { rawValue }
}

/// Holds a log and whatever keeps it alive (its temporary folder). A PostgreSQL log is a fresh
/// schema of the test process's throwaway server (`PostgresServer`).
final class LogFixture {
    let log: any LogStore
    let folder: TemporaryDirectory?

    init(_ kind: LogKind) throws {
        switch kind {
        case .memory:
            folder = nil
            log = InMemoryEventLog()
        case .lmdb:
            let folder = TemporaryDirectory()
            self.folder = folder
            log = try LMDBEventLog(path: folder.child("log.lmdb"))
        #if Network
            case .postgres:
                folder = nil
                log = try PostgresEventLog.open(url: PostgresServer.shared.url(), access: .readWriteCreating)
        #endif
        }
    }
}

/// Unique ids without shared mutable state (tests run in parallel).
private func randomID() -> EventID { EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)) }

private func newEvents(_ events: AppEvent...) -> [NewEvent] {
    events.map { NewEvent(eventId: randomID(), timestamp: Timestamp(microseconds: 1), actor: .user, event: $0) }
}

private let modal = AppEvent.navigation(.modalPresented)

@Suite("Event log contract")
struct EventLogContractTests {
    @Test(arguments: LogKind.allCases)
    func appendsAssignContiguousPositionsAndVersions(kind: LogKind) throws {
        let log = try LogFixture(kind).log
        let results = try log.append([
            AppendRequest(stream: "a", expectedVersion: 0, commandId: nil, events: newEvents(modal, modal)),
            AppendRequest(stream: "b", expectedVersion: nil, commandId: nil, events: newEvents(modal)),
            AppendRequest(stream: "a", expectedVersion: 2, commandId: nil, events: newEvents(modal)),
        ])
        #expect(
            results == [
                .appended(CommandReceipt(firstPosition: 1, eventCount: 2, version: 2)),
                .appended(CommandReceipt(firstPosition: 3, eventCount: 1, version: 1)),
                .appended(CommandReceipt(firstPosition: 4, eventCount: 1, version: 3)),
            ])
        #expect(try log.lastPosition() == 4)
        #expect(try log.version(of: "a") == 3)
        #expect(try log.version(of: "nope") == 0)
        #expect(try log.events().map(\.position) == [1, 2, 3, 4])
        #expect(try log.events(inStream: "a").map { [$0.position, $0.version] } == [[1, 1], [2, 2], [4, 3]])
        #expect(try log.events(inStream: "a", throughPosition: 3).count == 2)
        #expect(try log.events(from: 2, limit: 2).map(\.position) == [2, 3])
    }

    @Test(arguments: LogKind.allCases)
    func aWrongExpectedVersionWritesNothing(kind: LogKind) throws {
        let log = try LogFixture(kind).log
        _ = try log.append([AppendRequest(stream: "a", expectedVersion: nil, commandId: nil, events: newEvents(modal))])
        let results = try log.append([AppendRequest(stream: "a", expectedVersion: 0, commandId: nil, events: newEvents(modal))])
        #expect(results == [.conflict(actualVersion: 1)])
        #expect(try log.lastPosition() == 1)
    }

    @Test(arguments: LogKind.allCases)
    func aRepeatedCommandIdIsAnsweredWithTheOriginalReceipt(kind: LogKind) throws {
        let log = try LogFixture(kind).log
        let first = try log.append([AppendRequest(stream: "a", expectedVersion: nil, commandId: "c1", events: newEvents(modal, modal))])
        let again = try log.append([AppendRequest(stream: "a", expectedVersion: 99, commandId: "c1", events: newEvents(modal))])
        #expect(first == [.appended(CommandReceipt(firstPosition: 1, eventCount: 2, version: 2))])
        #expect(again == [.duplicate(CommandReceipt(firstPosition: 1, eventCount: 2, version: 2))])
        #expect(try log.receipt(stream: "a", commandId: "c1") == CommandReceipt(firstPosition: 1, eventCount: 2, version: 2))
        #expect(try log.receipt(stream: "b", commandId: "c1") == nil, "command ids are per stream")
        #expect(try log.lastPosition() == 2)
    }

    @Test(arguments: LogKind.allCases)
    func aReceiptKeepsTheCommandsFingerprint(kind: LogKind) throws {
        let log = try LogFixture(kind).log
        let first = try log.append([
            AppendRequest(stream: "a", expectedVersion: nil, commandId: "c1", events: newEvents(modal), commandFingerprint: 0xFEED_F00D_0000_0001),
            AppendRequest(stream: "a", expectedVersion: nil, commandId: "c2", events: newEvents(modal)),
        ])
        let withFingerprint = CommandReceipt(firstPosition: 1, eventCount: 1, version: 1, commandFingerprint: 0xFEED_F00D_0000_0001)
        #expect(first == [.appended(withFingerprint), .appended(CommandReceipt(firstPosition: 2, eventCount: 1, version: 2))])
        #expect(try log.receipt(stream: "a", commandId: "c1") == withFingerprint)
        #expect(try log.receipt(stream: "a", commandId: "c2")?.commandFingerprint == nil, "a receipt without one stays without")
        let again = try log.append([
            AppendRequest(stream: "a", expectedVersion: nil, commandId: "c1", events: newEvents(modal), commandFingerprint: 7)
        ])
        #expect(again == [.duplicate(withFingerprint)], "the log answers with what it kept; the pipeline compares")
    }

    @Test(arguments: LogKind.allCases)
    func laterRequestsOfAStreamWhosePredecessorFailedAreConflicts(kind: LogKind) throws {
        let log = try LogFixture(kind).log
        _ = try log.append([AppendRequest(stream: "a", expectedVersion: nil, commandId: nil, events: newEvents(modal))])
        // Decided against version 0 and then 1, but the stream is already at 1: the second request's
        // expectation happens to match, yet it was decided against an event that was never written.
        let results = try log.append([
            AppendRequest(stream: "a", expectedVersion: 0, commandId: nil, events: newEvents(modal)),
            AppendRequest(stream: "a", expectedVersion: 1, commandId: nil, events: newEvents(modal), chained: true),
            AppendRequest(stream: "b", expectedVersion: 0, commandId: nil, events: newEvents(modal)),
            AppendRequest(stream: "a", expectedVersion: nil, commandId: nil, events: newEvents(modal)),
        ])
        #expect(
            results == [
                .conflict(actualVersion: 1), .conflict(actualVersion: 1), .appended(CommandReceipt(firstPosition: 2, eventCount: 1, version: 1)),
                .appended(CommandReceipt(firstPosition: 3, eventCount: 1, version: 2)),
            ],
            "an unchained request stands on its own")
    }

    @Test(arguments: LogKind.allCases)
    func recordedEventsKeepTheirEnvelope(kind: LogKind) throws {
        let log = try LogFixture(kind).log
        let new = NewEvent(
            eventId: EventID(high: 1, low: 2), timestamp: Timestamp(microseconds: 1_798_761_600_000_000), actor: .system,
            correlationId: "corr", causationId: "cmd", event: .cart(.orderPlaced(.init(orderId: "o", total: 5, itemCount: 1))))
        _ = try log.append([AppendRequest(stream: "s", expectedVersion: nil, commandId: nil, events: [new])])
        #expect(
            try log.events() == [
                RecordedEvent(
                    position: 1, stream: "s", version: 1, eventId: EventID(high: 1, low: 2),
                    timestamp: Timestamp(microseconds: 1_798_761_600_000_000), actor: .system,
                    correlationId: "corr", causationId: "cmd", event: new.event)
            ])
    }
}

@Suite("Event log contract: reading")
struct EventLogReadingContractTests {
    @Test(arguments: LogKind.allCases)
    func readingFromPastTheLastPositionYieldsNothing(kind: LogKind) throws {
        let log = try LogFixture(kind).log
        _ = try log.append([
            AppendRequest(
                stream: "a", expectedVersion: nil, commandId: nil,
                events: [
                    NewEvent(
                        eventId: EventID(high: 9, low: 9), timestamp: Timestamp(microseconds: 0), actor: .user, event: .navigation(.modalPresented))
                ])
        ])
        #expect(try log.events(from: 2).isEmpty)
        #expect(try log.events(from: 50).isEmpty)
    }
}
