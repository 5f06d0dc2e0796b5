import FlowDomain
import FlowLogBasics
import FlowLogMemory
import FlowLogTesting
import Testing

@testable import FlowLog

/// `GroupCommitWriter.perform`: work on the writer's thread that no commit straddles (the server's
/// `DELETE /streams/{stream}` forgets this way).
@Suite("Group commit: jobs between commits")
struct GroupCommitPerformTests {
    private static func add(_ stream: String) -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1))))
    }

    @Test func aJobRunsAloneBetweenTheCommitsQueuedAroundIt() throws {
        let log = InMemoryEventLog()
        nonisolated(unsafe) var commits: [Int] = []
        nonisolated(unsafe) var seen: [Int] = []
        let writer = GroupCommitWriter(processor: CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())) { commit in
            commits.append(commit.commands)
        }
        // Queued before the writer runs, so that all of them wait together: without the job, the
        // four submissions would share one commit.
        writer.submit([Self.add("a")]) { _ in }
        writer.submit([Self.add("b")]) { _ in }
        #expect(writer.perform({ _ in try log.lastPosition() }) { result in seen.append((try? result.get()) ?? -1) })
        writer.submit([Self.add("c")]) { _ in }
        writer.submit([Self.add("d")]) { _ in }
        writer.finish()
        writer.run()
        #expect(seen == [2], "the job saw the commit before it, and not the one after")
        #expect(commits == [2, 2])
        #expect(try log.lastPosition() == 4)
        #expect(!writer.perform({ _ in 0 }) { _ in Issue.record("ran after finish") })
    }
}
