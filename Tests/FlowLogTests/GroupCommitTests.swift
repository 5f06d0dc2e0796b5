import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog

/// `GroupCommitWriter`: many submitters, few commits, answers in order, and no answer before the
/// events are in the log.
@Suite("Group commit")
struct GroupCommitTests {
    private static func add(_ stream: String) -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1))))
    }

    private static func processor(_ log: any EventLog) -> CommandProcessor {
        CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
    }

    /// An event log whose appends fail, to see the failure reach every waiting submission.
    private final class RefusingLog: ForwardingEventLog, @unchecked Sendable {
        struct Refused: Error {}
        override func append(_ requests: [AppendRequest]) throws -> [AppendResult] { throw Refused() }
    }

    private static func version(_ outcome: CommandOutcome) -> Int {
        if case .accepted(let acceptance) = outcome { acceptance.receipt.version } else { -1 }
    }

    @Test func eightBlockingThreadsGetEveryCommandIntoTheLogInTheirOwnOrder() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let commits = Counter()
        let writer = GroupCommitWriter(processor: Self.processor(log)) { commit in commits.add(commit.commands) }
        writer.start(name: "test-writer")
        let perThread = 50
        let answers = ThreadAnswers(threads: 8)
        let done = DispatchGroup()
        for thread in 0..<8 {
            done.enter()
            Thread {
                for _ in 0..<perThread { answers.record(thread, try! writer.handle([Self.add("t\(thread)")])[0]) }
                done.leave()
            }.start()
        }
        done.wait()
        writer.stop()
        #expect(try log.lastPosition() == 8 * perThread)
        for thread in 0..<8 {
            // Each thread's commands were answered in the order it sent them, versions 1, 2, 3, …
            #expect(answers.of(thread).map(Self.version) == Array(1...perThread))
            #expect(try log.events(inStream: "t\(thread)").map(\.version) == Array(1...perThread))
        }
        let positions = (0..<8).flatMap { answers.of($0) }.compactMap {
            if case .accepted(let acceptance) = $0 { acceptance.receipt.firstPosition } else { nil }
        }
        #expect(Set(positions) == Set(1...(8 * perThread)), "every position answered exactly once")
        #expect(commits.total == 8 * perThread)
        #expect(commits.count <= 8 * perThread)
        #expect(throws: GroupCommitWriter.Finished.self) { try writer.handle([Self.add("late")]) }
    }

    @Test func queuedSubmissionsShareOneCommitAndAreInTheLogWhenAnswered() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let commits = Counter()
        let writer = GroupCommitWriter(processor: Self.processor(log)) { commit in commits.add(commit.commands) }
        let answers = ThreadAnswers(threads: 1)
        nonisolated(unsafe) var positionsWhenAnswered: [Int] = []
        for index in 0..<100 {
            writer.submit([Self.add("s\(index % 4)")]) { result in
                positionsWhenAnswered.append((try? log.lastPosition()) ?? -1)
                answers.record(0, try! result.get()[0])
            }
        }
        #expect(try log.lastPosition() == 0, "nothing is written before the writer runs")
        writer.finish()
        writer.run()
        #expect(positionsWhenAnswered == Array(repeating: 100, count: 100), "each answer came after the whole queue's commit")
        #expect(
            answers.of(0).compactMap { if case .accepted(let acceptance) = $0 { acceptance.receipt.firstPosition } else { nil } } == Array(1...100))
        #expect(commits.count == 1)
    }

    @Test func aCommitStopsAtTheStreamLimitBetweenSubmissions() throws {
        let log = InMemoryEventLog()
        let commits = Counter()
        let writer = GroupCommitWriter(processor: Self.processor(log), streamsPerCommit: 3) { commit in commits.add(commit.commands) }
        // Four streams in two submissions of two commands each, then one submission naming five.
        writer.submit([Self.add("a"), Self.add("b")]) { _ in }
        writer.submit([Self.add("c"), Self.add("d")]) { _ in }
        writer.submit((0..<5).map { Self.add("e\($0)") }) { _ in }
        writer.finish()
        writer.run()
        #expect(commits.sizes == [2, 2, 5], "a submission that alone names more streams still goes whole")
        #expect(try log.lastPosition() == 9)
    }

    /// `send` hands each part of a read over with the streams it counted when it cut the read:
    /// the writer weighs the next part against those, without counting them again.
    @Test func streamsCountedBySendAreWeighedAsTheWritersOwnCount() throws {
        let log = InMemoryEventLog()
        let commits = Counter()
        let writer = GroupCommitWriter(processor: Self.processor(log), streamsPerCommit: 2) { commit in commits.add(commit.commands) }
        // Two parts of two streams each, then one naming only streams of the one before.
        _ = writer.submit([Self.add("a"), Self.add("b")], fieldsChecked: false, prefetched: LoadedAhead(), streams: ["a", "b"], pages: nil) { _ in }
        _ = writer.submit([Self.add("c"), Self.add("d")], fieldsChecked: false, prefetched: LoadedAhead(), streams: ["c", "d"], pages: nil) { _ in }
        _ = writer.submit(
            [Self.add("d"), Self.add("c"), Self.add("c")], fieldsChecked: false, prefetched: LoadedAhead(), streams: ["c", "d"], pages: nil
        ) { _ in
        }
        writer.finish()
        writer.run()
        #expect(commits.sizes == [2, 5])
        #expect(try log.lastPosition() == 7)
    }

    /// `send`'s slices come weighed in the pages of the table of streams they change: a commit
    /// takes them while their pages fit, whatever their streams, and one alone goes whole.
    @Test func slicesWeighedInPagesJoinWhileTheirPagesFit() throws {
        let log = InMemoryEventLog()
        let commits = Counter()
        let writer = GroupCommitWriter(processor: Self.processor(log), pagesPerCommit: 5) { commit in commits.add(commit.commands) }
        for (streams, pages) in [(["a"], 3), (["b", "c"], 2), (["d"], 1), (["e", "f", "g"], 9), (["h"], nil)] as [([String], Int?)] {
            let envelopes = streams.map { Self.add($0) }
            _ = writer.submit(envelopes, fieldsChecked: false, prefetched: LoadedAhead(), streams: Set(streams), pages: pages) { _ in }
        }
        writer.finish()
        writer.run()
        // 3 + 2 fit; 1 begins the next, 9 does not join it and goes alone; one not weighed joins it.
        #expect(commits.sizes == [3, 1, 4])
        #expect(try log.lastPosition() == 8)
    }

    @Test func aFailedCommitReachesEverySubmissionItCarriedAndTheWriterGoesOn() throws {
        let writer = GroupCommitWriter(processor: Self.processor(RefusingLog()))
        nonisolated(unsafe) var failures = 0
        for _ in 0..<5 {
            writer.submit([Self.add("s")]) { result in
                if case .failure(let error) = result, error is RefusingLog.Refused { failures += 1 }
            }
        }
        writer.finish()
        writer.run()
        #expect(failures == 5)
    }
}

/// Answers gathered per thread.
private final class ThreadAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [[CommandOutcome]]
    init(threads: Int) { answers = Array(repeating: [], count: threads) }
    func record(_ thread: Int, _ answer: CommandOutcome) { lock.withLock { answers[thread].append(answer) } }
    func of(_ thread: Int) -> [CommandOutcome] { lock.withLock { answers[thread] } }
}

/// The commits a writer reported, by their number of commands.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var commits: [Int] = []
    func add(_ commands: Int) { lock.withLock { commits.append(commands) } }
    var sizes: [Int] { lock.withLock { commits } }
    var count: Int { sizes.count }
    var total: Int { sizes.reduce(0, +) }
}
