import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogProjections
import FlowLogStore
import FlowLogTesting
import Testing

/// A clock the test moves by hand.
private final class HandClock: WallClock {
    var current: Timestamp
    init(_ start: Timestamp) { current = start }
    func now() -> Timestamp { current }
    func advance(days: Double) { current.microseconds += Int64(days * 86_400_000_000) }
}

private let start = Timestamp(microseconds: 1_798_761_600_000_000)

private func at(daysBefore days: Double) -> Timestamp {
    Timestamp(microseconds: start.microseconds - Int64(days * 86_400_000_000))
}

/// Appends one session whose events happened at `times`.
private func session(_ stream: String, _ times: [Timestamp], to log: any EventLog) throws {
    let events = times.enumerated().map { index, time in
        NewEvent(
            eventId: EventID(high: .random(in: 0...UInt64.max), low: UInt64(index)), timestamp: time, actor: .user,
            event: .navigation(.modalPresented))
    }
    _ = try log.append([AppendRequest(stream: stream, expectedVersion: nil, commandId: nil, events: events)])
}

/// The daily run of a log's retention (`RetentionSchedule`) and the batch it forgets with
/// (`forget(streams:lastEventBefore:)`), on a clock the tests move instead of waiting a day.
@Suite("Retention schedule")
struct RetentionScheduleTests {
    @Test func theScheduleAppliesTheRetentionAtStartAndThenWhenADayHasPassed() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try session("old", [at(daysBefore: 200), at(daysBefore: 199)], to: log)
        try session("recent", [at(daysBefore: 300), at(daysBefore: 10)], to: log)
        _ = try log.updateSettings { settings, _ in
            var changed = settings
            changed.retention = RetentionPeriod("90d")
            return changed
        }
        #expect(try log.settings().retention == RetentionPeriod(count: 90, unit: .days))
        let clock = HandClock(start)
        var lines: [String] = []
        let schedule = RetentionSchedule(log: log, clock: clock) { lines.append($0) }

        guard case .applied(let first)? = schedule.runIfDue() else {
            Issue.record("no run at start")
            return
        }
        #expect(first.sessions == 1 && first.events == 2)
        #expect(try log.streams().map(\.stream) == ["flowlog:erasures", "recent"])
        let audit = try log.events(inStream: SystemStreams.erasures)
        #expect(
            audit.count == 1
                && audit[0].event
                    == .system(
                        .streamForgotten(
                            .init(events: 2, reason: "retention: last event older than 90d (before \(at(daysBefore: 90).rfc3339))", pseudonym: nil)))
        )
        #expect(lines.count == 1 && lines[0].contains("forgot 1 sessions"), "\(lines)")

        clock.advance(days: 0.99)
        #expect(schedule.runIfDue() == nil, "not a day yet")
        clock.advance(days: 0.02)
        guard case .applied(let second)? = schedule.runIfDue() else {
            Issue.record("no run after a day")
            return
        }
        #expect(second.sessions == 0, "recent's last event is 11 days old")

        // 80 days on, recent's last event is 91 days old: the next daily run forgets it.
        clock.advance(days: 80)
        guard case .applied(let third)? = schedule.runIfDue() else {
            Issue.record("no run 81 days on")
            return
        }
        #expect(third.sessions == 1)
        #expect(try log.streams().map(\.stream) == ["flowlog:erasures"])
        #expect(try log.checkIntegrity().isIntact)
    }

    @Test func aLogWithoutARetentionOrThatCannotForgetIsLeftAlone() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try session("old", [at(daysBefore: 200)], to: log)
        var lines: [String] = []
        #expect(RetentionSchedule(log: log, clock: HandClock(start)) { lines.append($0) }.runIfDue() == .off)
        #expect(lines.isEmpty)
        #expect(try log.streams().count == 1)

        // A wrapper that passes on the contract alone: a log that cannot forget.
        let wrapper = ForwardingEventLog()
        _ = try wrapper.updateSettings { settings, _ in
            var kept = settings
            kept.retention = RetentionPeriod("90d")
            return kept
        }
        try session("old", [at(daysBefore: 200)], to: wrapper)
        #expect(RetentionSchedule(log: wrapper, clock: HandClock(start)) { lines.append($0) }.runIfDue() == .cannotForget)
        #expect(lines.count == 1 && lines[0].contains("skipped"), "\(lines)")
        #expect(try wrapper.streams().count == 1)
    }

    @Test func aRunnerThatFindsTheLeaseHeldSkipsTheDay() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try session("old", [at(daysBefore: 200)], to: log)
        _ = try log.updateSettings { settings, _ in
            var changed = settings
            changed.retention = RetentionPeriod("2w")
            return changed
        }
        let held = try log.leaseProjector(RetentionSchedule.leaseName)
        var lines: [String] = []
        #expect(RetentionSchedule(log: log, clock: HandClock(start)) { lines.append($0) }.runIfDue() == .busy)
        #expect(try log.streams().count == 1)
        #expect(lines.count == 1)
        withExtendedLifetime(held) {}
    }

    /// The check in the forgetting transaction: a session young again, or gone, is left out, not refused.
    @Test func aBatchForgetsOnlyTheSessionsStillOld() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        try session("a", [at(daysBefore: 200)], to: log)
        try session("b", [at(daysBefore: 200)], to: log)
        let cutoff = at(daysBefore: 90)
        let listed = try Retention.candidates(in: log, olderThan: cutoff)
        #expect(listed.map(\.stream) == ["a", "b"])
        // After the listing, b gets a new event.
        try session("b", [at(daysBefore: 1)], to: log)
        let forgotten = try log.forget(streams: ["a", "b", "never"], lastEventBefore: cutoff) { _ in nil }
        #expect(forgotten.map(\.stream) == ["a"])
        // A run's walk lists c and d; before their batch's transaction, d gets a new event.
        try session("c", [at(daysBefore: 200)], to: log)
        try session("d", [at(daysBefore: 200)], to: log)
        let outcome = try Retention.forget(
            in: log, olderThan: cutoff, period: "90d", using: log, clock: HandClock(start),
            beforeBatch: { batch in
                #expect(batch == ["c", "d"])
                try session("d", [at(daysBefore: 1)], to: log)
            })
        #expect(outcome.sessions == 1 && outcome.skipped == 1 && outcome.batches == 1 && !outcome.stopped)
        #expect(try log.streams().map(\.stream).filter { !SystemStreams.isReserved($0) } == ["b", "d"])
    }

    /// The walk forgets a batch at a time; a stop request ends it after the batch under way, and
    /// says so only when old sessions remain.
    @Test func aStoppedRunSaysSoOnlyWhenSessionsRemain() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        for name in ["a", "b", "c"] { try session(name, [at(daysBefore: 200)], to: log) }
        let cutoff = at(daysBefore: 90)
        let first = try Retention.forget(
            in: log, olderThan: cutoff, period: "90d", using: log, clock: HandClock(start), batchSize: 2, afterBatch: { _ in false })
        #expect(first.sessions == 2 && first.batches == 1 && first.stopped)
        let second = try Retention.forget(
            in: log, olderThan: cutoff, period: "90d", using: log, clock: HandClock(start), batchSize: 2, afterBatch: { _ in false })
        #expect(second.sessions == 1 && second.batches == 1 && !second.stopped)
        #expect(try Retention.candidateCount(in: log, olderThan: cutoff) == 0)
    }

    @Test func periodsNeedAUnit() {
        #expect(RetentionPeriod("90d")?.microseconds == Int64(90) * 86_400_000_000)
        #expect(RetentionPeriod("12h")?.description == "12h")
        #expect(RetentionPeriod("2w")?.spelledOut == "2 weeks")
        for bad in ["90", "", "d", "0d", "-1d", "1.5d", "90m", "9999999999w"] { #expect(RetentionPeriod(bad) == nil, "\(bad)") }
        #expect(RetentionPeriod.refusal(of: "90", option: "--older-than").contains("did you mean 90d?"))
    }
}
