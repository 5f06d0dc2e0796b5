import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLogHistory

/// `replay --verify` walks the log once in position order; its report must be the one the walk
/// stream by stream made: streams in the log's order, each compared up to its first disagreement.
@Suite("replay --verify: one walk of the log")
struct FingerprintVerificationTests {
    /// The report of the stream-by-stream walk `verifyFingerprints` made before.
    private func streamByStream(_ log: any LogStore) throws -> ReplayVerifier.Report {
        var byStream: [String: [(RecordedEvent, UInt64?)]] = [:]
        try log.forEachEventWithFingerprint(from: 1, through: nil) { record, recorded in
            byStream[record.stream, default: []].append((record, recorded))
            return true
        }
        var report = ReplayVerifier.Report()
        var scratch = BinaryWriter(capacity: 64)
        for (stream, _) in try log.streams() {
            report.streams += 1
            var state = FlowDecider.initialState
            for (record, recorded) in byStream[stream] ?? [] {
                report.events += 1
                FlowDecider.evolve(&state, record.event)
                guard let recorded else { continue }
                report.comparisons += 1
                if FlowDecider.fingerprint(state, scratch: &scratch) != recorded {
                    report.disagreements.append(
                        Disagreement(
                            stream: stream, position: record.position, version: record.version,
                            eventType: record.event.typeName, replayed: state, recorded: nil, reason: ""))
                    break
                }
            }
        }
        return report
    }

    /// Random commands' events over five streams, appended with their true fingerprints, except for some
    /// wrong ones (as a changed reducer would leave) and some appended without any.
    @Test(arguments: LogKind.allCases, [UInt64(1), 2, 3, 4, 5, 6])
    func oneWalkReportsWhatAWalkStreamByStreamDid(kind: LogKind, seed: UInt64) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        var states: [String: FlowState] = [:]
        var scratch = BinaryWriter(capacity: 64)
        var ids = SequentialIDGenerator()
        var wrongedB = false
        for index in 0..<600 {
            let stream = ["d", "b", "a", "c", "e"].randomElement(using: &rng)!
            guard let events = try? FlowDecider.decide(generator.command(using: &rng), state: states[stream, default: FlowDecider.initialState]),
                !events.isEmpty
            else { continue }
            var fingerprints: [UInt64] = []
            for event in events {
                FlowDecider.evolve(&states[stream, default: FlowDecider.initialState], event)
                var fingerprint = FlowDecider.fingerprint(states[stream]!, scratch: &scratch)
                // A wrong one now and then, and always one in the first request of stream "b" after the 200th.
                if Int.random(in: 0..<60, using: &rng) == 0 || (index >= 200 && stream == "b" && !wrongedB) {
                    fingerprint ^= 1
                    wrongedB = wrongedB || stream == "b"
                }
                fingerprints.append(fingerprint)
            }
            let withFingerprints = Int.random(in: 0..<8, using: &rng) != 0
            _ = try log.append([
                AppendRequest(
                    stream: stream, expectedVersion: nil, commandId: nil,
                    events: events.map { NewEvent(eventId: ids.next(), timestamp: Timestamp(microseconds: 1), actor: .user, event: $0) },
                    fingerprints: withFingerprints ? fingerprints : [])
            ])
        }
        let report = try ReplayVerifier.verifyFingerprints(of: log)
        let expected = try streamByStream(log)
        #expect(report.streams == expected.streams)
        #expect(report.events == expected.events)
        #expect(report.comparisons == expected.comparisons)
        #expect(!expected.disagreements.isEmpty)
        #expect(report.disagreements.map(\.stream) == expected.disagreements.map(\.stream))
        #expect(report.disagreements.map(\.position) == expected.disagreements.map(\.position))
        #expect(report.disagreements.map(\.version) == expected.disagreements.map(\.version))
        #expect(report.disagreements.map(\.eventType) == expected.disagreements.map(\.eventType))
        #expect(report.disagreements.map(\.replayed) == expected.disagreements.map(\.replayed))
    }

    /// A walk can start and stop anywhere, and every event comes with what was recorded for it.
    @Test(arguments: LogKind.allCases)
    func aWalkFromAndThroughAPositionGivesThoseEventsWithTheirFingerprints(kind: LogKind) throws {
        let fixture = try LogFixture(kind)
        let log = fixture.log
        defer { withExtendedLifetime(fixture) {} }
        var ids = SequentialIDGenerator()
        for index in 1...50 {
            _ = try log.append([
                AppendRequest(
                    stream: "s\(index % 3)", expectedVersion: nil, commandId: nil,
                    events: [NewEvent(eventId: ids.next(), timestamp: Timestamp(microseconds: 1), actor: .user, event: .navigation(.modalPresented))],
                    fingerprints: index % 5 == 0 ? [] : [UInt64(index) * 1_000])
            ])
        }
        var seen: [(Int, UInt64?)] = []
        try log.forEachEventWithFingerprint(from: 10, through: 20) { record, recorded in
            seen.append((record.position, recorded))
            return true
        }
        let expected: [UInt64?] = (10...20).map { $0 % 5 == 0 ? nil : UInt64($0) * 1_000 }
        #expect(seen.map(\.0) == Array(10...20))
        #expect(seen.map(\.1) == expected)
        var stopped: [Int] = []
        try log.forEachEventWithFingerprint(from: 45, through: nil) { record, _ in
            stopped.append(record.position)
            return record.position < 47
        }
        #expect(stopped == [45, 46, 47])
        try log.forEachEventWithFingerprint(from: 51, through: nil) { _, _ in
            Issue.record("past the end")
            return true
        }
    }
}
