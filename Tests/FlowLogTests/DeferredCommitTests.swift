import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog

/// `send` on a log that answers before its commit (PostgreSQL): the next batch is decided while
/// the commit runs, but no answer is written before its commit is confirmed, a failed commit
/// answers nothing of its batch, and a caller that waits for each answer before writing the next
/// line still gets it.
@Suite("send with deferred commits")
struct DeferredCommitTests {
    /// What happened, in order, across the log and the output.
    final class Journal: @unchecked Sendable {
        private let condition = NSCondition()
        private(set) var entries: [String] = []
        func add(_ entry: String) {
            condition.lock()
            entries.append(entry)
            condition.broadcast()
            condition.unlock()
        }
        /// Waits up to `seconds` for an entry that starts with `prefix`.
        func waitFor(_ prefix: String, seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: seconds)
            while !entries.contains(where: { $0.hasPrefix(prefix) }) {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// An in-memory log whose commits are confirmed only when waited for; commit `failing` fails.
    final class DeferringLog: ForwardingEventLog, DeferredCommitAppending, @unchecked Sendable {
        let journal: Journal
        let failing: Int?
        private var appends = 0
        init(journal: Journal, failing: Int? = nil) {
            self.journal = journal
            self.failing = failing
        }
        var defersCommit: Bool { true }
        override var capabilities: LogCapabilities {
            LogCapabilities(
                snapshots: nil, batchReading: nil, deferredCommits: self, following: nil, backup: nil,
                forgetting: nil, keptRowRepair: nil, predictedAppends: nil, prefetching: nil, eventIds: nil,
                newestLogSchema: LogSettings.newestLogSchema, keepsRowsApart: false)
        }
        final class Commit: PendingCommit {
            let number: Int, fails: Bool, journal: Journal
            init(_ number: Int, fails: Bool, journal: Journal) { (self.number, self.fails, self.journal) = (number, fails, journal) }
            func wait() throws {
                journal.add("commit \(number)")
                if fails { throw FlowLogError.io(path: "test", detail: "commit \(number) failed") }
            }
        }
        func appendDeferringCommit(_ requests: [AppendRequest]) throws -> (results: [AppendResult], commit: any PendingCommit) {
            appends += 1
            let results = try inner.append(requests)
            journal.add("append \(appends) to \(try inner.lastPosition())")
            return (results, Commit(appends, fails: appends == failing, journal: journal))
        }
    }

    final class JournalOutput: OutputSink {
        let journal: Journal
        init(_ journal: Journal) { self.journal = journal }
        func write(_ bytes: [UInt8]) throws {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") { journal.add("answer \(line)") }
        }
    }

    private func line(_ n: Int) -> String {
        #"{"type":"cart.addProduct","stream":"s\#(n % 3)","productId":"p\#(n)","unitPrice":100,"quantity":1}"# + "\n"
    }

    private func run(
        _ input: String, log: DeferringLog, chunkSize: Int, processor: CommandProcessor? = nil,
        streamsPerCommit: Int = AppendRules.streamsPerCommit
    ) throws -> SendSession.Summary {
        let folder = TemporaryDirectory()
        let file = folder.child("in.ndjson")
        try input.write(toFile: file, atomically: true, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        let processor = processor ?? CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        // Commits of at most 8 commands, so that 40 commands make several, however far the reading runs ahead.
        return try SendSession(processor: processor, output: JournalOutput(log.journal), commandsPerCommit: 8, streamsPerCommit: streamsPerCommit)
            .run(reader: LineReader(fileDescriptor: descriptor, chunkSize: chunkSize))
    }

    /// With commits of at most two streams too: a batch of commands for three streams is then
    /// committed in parts, each answered after its own commit.
    @Test(arguments: [AppendRules.streamsPerCommit, 2])
    func everyBatchIsAnsweredOnlyAfterItsCommitAndAsWithoutDeferring(streamsPerCommit: Int) throws {
        // Given 40 commands read a few at a time
        let input = (0..<40).map(line).joined()
        let log = DeferringLog(journal: Journal())
        // When they are sent
        let summary = try run(input, log: log, chunkSize: 300, streamsPerCommit: streamsPerCommit)
        // Then every answer comes after its batch's commit, and they are the answers of a plain log
        var appendedThrough: [Int] = []
        var committed: Set<Int> = []
        var answered = 0
        for entry in log.journal.entries {
            let words = entry.split(separator: " ")
            if words[0] == "append" { appendedThrough.append(Int(words[3])!) }
            if words[0] == "commit" { committed.insert(Int(words[1])!) }
            if words[0] == "answer" {
                answered += 1
                #expect(entry.contains("\"positions\":[\(answered)]"))
                let batch = try #require(appendedThrough.firstIndex { $0 >= answered }) + 1
                #expect(committed.contains(batch), "answer \(answered) came before commit \(batch)")
            }
        }
        #expect(summary.accepted == 40)
        #expect(answered == 40)
        #expect(committed.count == appendedThrough.count)
        #expect(appendedThrough.count > 2)
        // Round-robin over three streams, a part of at most two streams holds at most two commands.
        if streamsPerCommit == 2 { #expect(appendedThrough.count >= 20) }
    }

    @Test func aFailedCommitAnswersNothingOfItsBatchAndForgetsTheCachedStates() throws {
        // Given a log whose second commit fails
        let log = DeferringLog(journal: Journal(), failing: 2)
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        // When 40 commands are sent a few at a time
        #expect(throws: FlowLogError.self) { try run((0..<40).map(line).joined(), log: log, chunkSize: 300, processor: processor) }
        // Then the answers written are those of the first batch only, each after its commit
        let entries = log.journal.entries
        let firstCommit = try #require(entries.firstIndex(of: "commit 1"))
        let answers = entries.indices.filter { entries[$0].hasPrefix("answer ") }
        #expect(!answers.isEmpty)
        #expect(answers.allSatisfy { $0 > firstCommit })
        #expect(!entries[(entries.firstIndex(of: "commit 2") ?? entries.count)...].contains { $0.hasPrefix("answer ") })
        #expect(processor.cache.count == 0)
    }

    @Test func aCallerThatWaitsForEachAnswerGetsItBeforeWritingMore() throws {
        // Given a pipe that a caller writes one line at a time into, waiting for each answer
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let log = DeferringLog(journal: Journal())
        let done = DispatchSemaphore(value: 0)
        let input = fds[0]
        Thread {
            let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            _ = try? SendSession(processor: processor, output: JournalOutput(log.journal)).run(reader: LineReader(fileDescriptor: input))
            done.signal()
        }.start()
        // When it writes a line and waits, three times
        for n in 1...3 {
            let text = line(n)
            _ = text.withCString { write(fds[1], $0, strlen($0)) }
            // Then each answer arrives while the input is still open
            #expect(log.journal.waitFor("answer {\"ok\":true,\"stream\":\"s\(n % 3)\",\"positions\":[\(n)]", seconds: 10))
        }
        close(fds[1])
        #expect(done.wait(timeout: .now() + 10) == .success)
        close(fds[0])
    }
}
