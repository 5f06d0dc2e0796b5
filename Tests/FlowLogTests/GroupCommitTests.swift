@testable import FlowLog
import FlowLogLMDB
import FlowDomain
import FlowLogTesting
import Foundation
import Testing

/// `GroupCommitLog`: many appenders, few commits, and no answer before the events are in the log.
@Suite("Group commit")
struct GroupCommitTests {
    private static func request(_ stream: String, _ ids: inout SequentialIDGenerator) -> AppendRequest {
        AppendRequest(stream: stream, expectedVersion: nil, commandId: nil,
                      events: [NewEvent(eventId: ids.next(), timestamp: Timestamp(microseconds: 0), actor: .user, event: .navigation(.modalPresented))])
    }

    /// An event log whose appends fail, to see the failure reach every waiting append.
    private final class RefusingLog: ForwardingEventLog, @unchecked Sendable {
        struct Refused: Error {}
        override func append(_ requests: [AppendRequest]) throws -> [AppendResult] { throw Refused() }
    }

    @Test func eightBlockingThreadsGetEveryAppendIntoTheLogInTheirOwnOrder() throws {
        let folder = try TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let group = GroupCommitLog(log: log)
        let perThread = 50
        var ids = SequentialIDGenerator()
        let requests = (0..<8).map { thread in (0..<perThread).map { _ in Self.request("t\(thread)", &ids) } }
        let answers = ThreadAnswers(threads: 8)
        let done = DispatchGroup()
        for thread in 0..<8 {
            done.enter()
            Thread {
                for one in requests[thread] { answers.record(thread, try! group.append(one)) }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(try log.lastPosition() == 8 * perThread)
        for thread in 0..<8 {
            // Each thread's appends were answered in the order it made them, versions 1, 2, 3, …
            #expect(answers.of(thread).map { if case .appended(let receipt) = $0 { receipt.version } else { -1 } } == Array(1...perThread))
            #expect(try log.events(inStream: "t\(thread)").map(\.version) == Array(1...perThread))
        }
        let positions = (0..<8).flatMap { answers.of($0) }.compactMap { if case .appended(let receipt) = $0 { receipt.firstPosition } else { nil } }
        #expect(Set(positions) == Set(1...(8 * perThread)), "every position answered exactly once")
        #expect(group.requests == 8 * perThread)
        #expect(group.commits <= group.requests)
    }

    @Test func submittedAppendsShareOneCommitAndAreInTheLogWhenAnswered() throws {
        let folder = try TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let group = GroupCommitLog(log: log)
        var ids = SequentialIDGenerator()
        let pending = (0..<100).map { index in group.submit(Self.request("s\(index % 4)", &ids)) }
        #expect(try log.lastPosition() == 0, "nothing is written before someone waits")
        let first = try pending[0].wait()
        #expect(try log.lastPosition() == 100, "the first answer came with the whole queue's commit")
        #expect(first == .appended(CommandReceipt(firstPosition: 1, eventCount: 1, version: 1)))
        let answers = try pending.map { try $0.wait() }
        #expect(answers.compactMap { if case .appended(let receipt) = $0 { receipt.firstPosition } else { nil } } == Array(1...100))
        #expect(group.commits == 1)
    }

    @Test func aFailedCommitReachesEveryAppendItCarried() throws {
        let group = GroupCommitLog(log: RefusingLog())
        var ids = SequentialIDGenerator()
        let pending = (0..<5).map { _ in group.submit(Self.request("s", &ids)) }
        for one in pending {
            #expect(throws: RefusingLog.Refused.self) { try one.wait() }
        }
    }
}

/// Answers gathered per thread.
private final class ThreadAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [[AppendResult]]
    init(threads: Int) { answers = Array(repeating: [], count: threads) }
    func record(_ thread: Int, _ answer: AppendResult) { lock.withLock { answers[thread].append(answer) } }
    func of(_ thread: Int) -> [AppendResult] { lock.withLock { answers[thread] } }
}
