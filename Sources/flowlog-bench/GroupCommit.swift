import Deciding
import FlowLog
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import Foundation
import Synchronization

// MARK: group commit: the log's one writer under many threads, and what a commit costs as it grows

/// The `group` case: eight threads sending one-event commands through the log's `GroupCommitWriter`
/// (each waiting for its own answer, then with 32 in flight), against one thread committing each
/// command alone; then one synchronous commit carrying 1, 8 and 64 appends, which is why grouping pays.
func runGroupCommit(_ options: Options, work: String, report: inout Report) throws {
    let perThread = 400
    let window = 32
    var single = Timings()
    var blocking = Timings()
    var pipelined = Timings()
    var blockingGrouping = ""
    var pipelinedGrouping = ""
    for run in 0..<options.runs {
        fresh(work + "/group.lmdb")
        let log = try LMDBEventLog(path: work + "/group.lmdb")
        let clock = SystemClock()
        func processor() -> CommandProcessor { CommandProcessor(log: log, clock: clock, ids: UUIDv7Generator(clock: clock)) }
        let alone = processor()
        single.samples.append(try seconds { for _ in 0..<perThread { _ = try alone.handle([CommitCount.command("single")]) } })

        /// Eight real threads (DispatchQueue.concurrentPerform would run only as many as there are cores).
        func eightThreads(_ body: @escaping @Sendable (Int) -> Void) -> Double {
            seconds {
                let done = DispatchGroup()
                for thread in 0..<8 {
                    done.enter()
                    Thread {
                        body(thread)
                        done.leave()
                    }.start()
                }
                done.wait()
            }
        }
        /// The log's one writer (as `send` and `serve` use it), counting its commits.
        func writer() -> (GroupCommitWriter, CommitCount) {
            let count = CommitCount()
            let writer = GroupCommitWriter(processor: processor()) { commit in count.add(commit.commands) }
            writer.start(name: "bench-writer")
            return (writer, count)
        }
        // Blocking: each thread waits for each command to be durable before sending the next.
        let (blockingWriter, blockingCount) = writer()
        blocking.samples.append(
            eightThreads { thread in
                for _ in 0..<perThread { _ = try! blockingWriter.handle([CommitCount.command("blocking-\(thread)")]) }
            })
        blockingWriter.stop()
        // Pipelined: each thread keeps up to `window` commands in flight; a command counts only
        // once its answer (durable) is back.
        let (pipelinedWriter, pipelinedCount) = writer()
        pipelined.samples.append(
            eightThreads { thread in
                let room = DispatchSemaphore(value: window)
                let answered = DispatchGroup()
                for _ in 0..<perThread {
                    room.wait()
                    answered.enter()
                    pipelinedWriter.submit([CommitCount.command("pipelined-\(thread)")]) { result in
                        _ = try! result.get()
                        room.signal()
                        answered.leave()
                    }
                }
                answered.wait()
            })
        pipelinedWriter.stop()
        if run == 0 {
            blockingGrouping = "\(blockingCount.commands) commands in \(blockingCount.commits) commits"
            pipelinedGrouping = "\(pipelinedCount.commands) commands in \(pipelinedCount.commits) commits"
        }
    }
    report.add(
        "group commit: 8 threads, one-event commands through the log's writer, each waiting for its own", work: Double(8 * perThread),
        unit: "commands", blocking,
        baseline: ("one thread, one durable commit per command", single, Double(perThread)), note: "ceiling 8 commands a commit; \(blockingGrouping)")
    report.add(
        "group commit: 8 threads, one-event commands through the log's writer, \(window) in flight each", work: Double(8 * perThread),
        unit: "commands", pipelined,
        baseline: ("one thread, one durable commit per command", single, Double(perThread)), note: "target ratio ≥ 20; \(pipelinedGrouping)")

    // What one synchronous commit costs as it carries more appends.
    for size in [1, 8, 64] {
        var timings = Timings()
        for _ in 0..<options.runs {
            fresh(work + "/cost.lmdb")
            let log = try LMDBEventLog(path: work + "/cost.lmdb")
            var ids = UUIDv7Generator()
            let batches = (0..<200).map { _ in
                (0..<size).map { index in
                    AppendRequest(
                        stream: "t\(index)", expectedVersion: nil, commandId: nil,
                        events: [
                            NewEvent(eventId: ids.next(), timestamp: Timestamp(microseconds: 0), actor: .user, event: .navigation(.modalPresented))
                        ])
                }
            }
            timings.samples.append(try seconds { for batch in batches { _ = try log.append(batch) } } / 200)
        }
        report.add("one durable commit carrying \(size) single-event append\(size == 1 ? "" : "s")", work: Double(size), unit: "appends", timings)
    }
}

/// Commits and commands a writer reported.
final class CommitCount: Sendable {
    private let counts = Mutex((commits: 0, commands: 0))
    func add(_ commands: Int) {
        counts.withLock { counts in
            counts.commits += 1
            counts.commands += commands
        }
    }
    var commits: Int { counts.withLock { $0.commits } }
    var commands: Int { counts.withLock { $0.commands } }

    /// One product added: always accepted (400 of them stay within a line's 999), one event each.
    static func command(_ stream: String) -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1))))
    }
}
