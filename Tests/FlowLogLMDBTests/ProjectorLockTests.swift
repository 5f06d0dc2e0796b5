import FlowDomain
import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog
@testable import FlowLogLMDB
@testable import FlowLogProjections

/// Records what it is given.
private final class RecordingSink: TrackerSink {
    private(set) var delivered: [TrackerMessage] = []
    func deliver(_ messages: [TrackerMessage], of service: any AnalyticsService, done: (Int) throws -> Void) throws { delivered += messages }
}

@Suite("One runner per projector")
struct ProjectorLockTests {
    private func log(in folder: TemporaryDirectory, launches: Int) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: folder.child("log"))
        try append(launches, to: log)
        return log
    }

    private func append(_ launches: Int, to log: LMDBEventLog) throws {
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: UUIDv7Generator(clock: SystemClock()))
        for _ in 0..<launches { _ = try processor.handle(CommandEnvelope(stream: "s", command: .app(.launched(.init(hasOnboarded: false))))) }
    }

    @Test func aSecondLockOnAProjectorIsRefusedNamingItsHolderUntilTheFirstIsReleased() throws {
        let folder = TemporaryDirectory()
        let log = try log(in: folder, launches: 1)
        do {
            let held = try ProjectorLock(projector: "tracker.segment", log: log)
            #expect(throws: FlowLogError.busy(ProjectorBusy(projector: "tracker.segment", pid: getpid()))) {
                try ProjectorLock(projector: "tracker.segment", log: log)
            }
            _ = try ProjectorLock(projector: "tracker.snake", log: log)
            withExtendedLifetime(held) {}
        }
        _ = try ProjectorLock(projector: "tracker.segment", log: log)
        #expect(ProjectorBusy(projector: "storage", pid: 1234).description.hasPrefix("projector storage is being run by process 1234"))
    }

    @Test func aRebuiltTrackerSendsOnlyWhatItsCollectorHasNotAcknowledged() throws {
        let folder = TemporaryDirectory()
        let log = try log(in: folder, launches: 5)
        let sink = RecordingSink()
        let tracker = TrackerProjector(service: GA4Service(), sink: sink, log: log)
        let runner = ProjectionRunner(log: log)
        try runner.catchUp(tracker)
        #expect(sink.delivered.count == 5)

        try tracker.reset()
        #expect(try tracker.checkpoint() == 0)
        #expect(try runner.catchUp(tracker) == 5, "every event is walked again")
        #expect(sink.delivered.count == 5, "none is sent again")

        try append(2, to: log)
        try tracker.reset()
        try runner.catchUp(tracker)
        #expect(sink.delivered.count == 7, "only the two new ones")
        #expect(try log.acknowledgedPosition(of: tracker.name) == 5, "the mark moves at the next rebuild")

        try tracker.reset(resending: true)
        try runner.catchUp(tracker)
        #expect(sink.delivered.count == 14)
        #expect(try log.acknowledgedPosition(of: tracker.name) == 0)
    }

    /// A log from before the mark has only the checkpoint, and everything up to it was acknowledged.
    @Test func aCheckpointWithoutAMarkCountsAsAcknowledged() throws {
        let folder = TemporaryDirectory()
        let log = try log(in: folder, launches: 4)
        try log.setCheckpoint(3, of: "tracker.ga4")
        let sink = RecordingSink()
        let tracker = TrackerProjector(service: GA4Service(), sink: sink, log: log)
        try tracker.reset()
        try ProjectionRunner(log: log).catchUp(tracker)
        #expect(sink.delivered.count == 1)
    }
}
