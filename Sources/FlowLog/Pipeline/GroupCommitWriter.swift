import FlowLogBasics
public import FlowLogStore
import Foundation
public import Tracing

/// The one writer of a log's commands, whichever way they arrive: `send`'s parsed reads, the
/// server's requests, the bench's threads. Callers `submit` commands from any thread; one thread
/// (`run()`, on a thread of its own or the caller's) decides and appends everything that queued up
/// meanwhile in one durable commit (group commit) and answers each submission, in order, only once
/// its accepted events are durable. A synchronous commit costs about the same for one command as
/// for thousands, so throughput grows with the commands in flight.
///
/// A commit takes whole submissions, oldest first, while they hold at most `commandsPerCommit`
/// commands and name at most `streamsPerCommit` streams (`StreamBudget`); one submission alone
/// always goes, whatever it holds (`send` cuts its reads by streams before it submits them).
///
/// On a log that defers commits (PostgreSQL, `DeferredCommitAppending`; LMDB through a
/// `BackgroundAppender`) the writer decides the next commit while the one before is written, when
/// the next is already queued; answers still wait for their own commit. A commit whose predicted
/// answers diverged from the log's wrote nothing, and it and the one decided on top of it are
/// decided again, synchronously, before they are answered. When a commit fails, its submissions (and any decided on top of it)
/// are answered with the error and the writer goes on with states read afresh from the log.
///
/// Unchecked `Sendable`: the processor and the answers are used on the writer's thread alone; other threads only reach the queue.
public final class GroupCommitWriter: @unchecked Sendable {
    public typealias Answer = (Result<[CommandOutcome], any Error>) -> Void

    /// What one commit did, for metrics: told after its submissions were answered.
    public struct Commit: Sendable {
        public let commands: Int
        public let duration: Duration
        /// The answers in order, or `nil` when the commit failed.
        public let outcomes: [CommandOutcome]?
    }

    private struct Submission {
        let envelopes: [CommandEnvelope]
        /// Whether the envelopes passed `CommandProcessor.envelopeViolation` already (`send` checks
        /// them on its reading thread), so the writer's thread need not check them again.
        var fieldsChecked = false
        /// States of the commands' streams loaded ahead (`StatePrefetcher`), for the processor.
        var prefetched = LoadedAhead()
        /// The streams the commands name, where the caller counted them (`send`'s parts).
        var streams: Set<String>?
        /// The pages of the log's table of streams they change, where the look-ahead weighed them
        /// (`SlicePages`).
        var pages: Int?
        let answer: Answer
        /// Work on the processor between two commits (`perform`), instead of commands.
        var job: ((CommandProcessor) -> Void)?
        /// The caller's trace context and when it queued, when spans are on and it gave one.
        var trace: (context: ServiceContext, queued: DefaultTracerClock.Instant)?
    }

    private let processor: CommandProcessor
    private let commandsPerCommit: Int
    private let streamsPerCommit: Int
    private let pagesPerCommit: Int
    private let committed: (Commit) -> Void
    /// The submissions waiting, weighed by their commands (and at least one, since a submission
    /// without commands, `send`'s read of malformed lines, still holds its lines). Closing it is
    /// `finish()`, cancelling it `cancel()`.
    private let queue: Handoff<Submission>
    private let worker = WorkerThread()
    /// Nil unless a tracer is bootstrapped: then nothing about spans is done at all.
    private let tracing: CommitTracing?

    /// `queueCapacity`: commands that may wait before `submit` waits for room (`send` reads ahead no
    /// further than this); `Int.max` for callers that must never block (the server's event loops).
    /// `traceParent`: the span every commit span is a child of (`send`'s own); without it a commit's
    /// parent is its first traced submission's context. Spans are made only when the process
    /// bootstrapped a tracer.
    public init(
        processor: CommandProcessor, commandsPerCommit: Int = SendSession.defaultCommandsPerCommit,
        streamsPerCommit: Int = AppendRules.streamsPerCommit, pagesPerCommit: Int = AppendRules.pagesPerCommit,
        queueCapacity: Int = .max,
        traceParent: ServiceContext? = nil, committed: @escaping (Commit) -> Void = { _ in }
    ) {
        tracing = InstrumentationSystem.activeTracer.map { CommitTracing(tracer: $0, parent: traceParent) }
        // The span `send` runs in is the trace context of every command that names none.
        if tracing != nil, let context = traceParent?.traceContext { processor.defaultTraceContext = context }
        self.processor = processor
        self.commandsPerCommit = commandsPerCommit
        self.streamsPerCommit = streamsPerCommit
        self.pagesPerCommit = pagesPerCommit
        self.committed = committed
        queue = Handoff(capacity: queueCapacity) { max($0.envelopes.count, 1) }
    }

    /// Queues `envelopes`; `answer` is called on the writer's thread once they are decided and every
    /// accepted event among them is durable. Waits while the queue is full. Returns `false`, without
    /// queueing, once the writer finishes or was cancelled.
    /// `fieldsChecked`: every envelope passed `CommandProcessor.envelopeViolation` already.
    /// `trace`: the caller's context (a request's span), the parent of a span for each command.
    @discardableResult
    public func submit(
        _ envelopes: [CommandEnvelope], fieldsChecked: Bool = false, trace: ServiceContext? = nil, answer: @escaping Answer
    ) -> Bool {
        var submission = Submission(envelopes: envelopes, fieldsChecked: fieldsChecked, answer: answer)
        if tracing != nil, let trace { submission.trace = (trace, DefaultTracerClock.now) }
        return queue.put(submission)
    }

    /// `submit`, with states of the commands' streams that `send`'s reading thread loaded ahead,
    /// the streams they name where it counted them, and the pages they change where it weighed them.
    func submit(
        _ envelopes: [CommandEnvelope], fieldsChecked: Bool, prefetched: LoadedAhead, streams: Set<String>?, pages: Int?,
        answer: @escaping Answer
    ) -> Bool {
        queue.put(
            Submission(envelopes: envelopes, fieldsChecked: fieldsChecked, prefetched: prefetched, streams: streams, pages: pages, answer: answer))
    }

    /// Runs `body` on the writer's thread with the processor, alone: after every commit queued
    /// before it is durable and answered, before any queued after it. For what must not interleave
    /// with the commits and must see the processor's cache (forgetting a stream drops its state).
    /// `answer` gets what `body` returned, on the writer's thread. Returns `false`, running nothing,
    /// once the writer finishes or was cancelled.
    @discardableResult
    public func perform<Value>(_ body: @escaping (CommandProcessor) throws -> Value, answer: @escaping (Result<Value, any Error>) -> Void) -> Bool {
        queue.put(Submission(envelopes: [], answer: { _ in }, job: { processor in answer(Result { try body(processor) }) }))
    }

    /// `submit`, waiting for the answer: for a thread with nothing else to do meanwhile.
    public func handle(_ envelopes: [CommandEnvelope]) throws -> [CommandOutcome] {
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<[CommandOutcome], any Error>?
        guard
            submit(
                envelopes,
                answer: {
                    result = $0
                    answered.signal()
                })
        else { throw Finished() }
        answered.wait()
        return try result!.get()
    }

    /// The writer was finished or cancelled before the commands could be queued.
    public struct Finished: Error, CustomStringConvertible {
        public var description: String { "the log's writer is shutting down and takes no more commands" }
    }

    /// A commit handed over with its answers, not yet known durable.
    private typealias InFlight = (
        submissions: [Submission], outcomes: [CommandOutcome], commit: any PendingCommit, commands: Int,
        started: ContinuousClock.Instant, bytes: Int
    )

    /// Commits until `finish()` was called and the queue is empty, or until `cancel()`.
    public func run() {
        var inFlight: InFlight?
        while true {
            var next = take(waiting: inFlight == nil)
            if next.isEmpty, let done = inFlight {
                settleInFlight(done)
                inFlight = nil
                next = take(waiting: true)
            }
            if next.isEmpty { return }
            if let job = next.first?.job {
                // `take` hands a job over alone. The commit in flight goes first, durable and answered.
                if let done = inFlight {
                    settleInFlight(done)
                    inFlight = nil
                }
                job(processor)
                continue
            }
            let commands = next.reduce(0) { $0 + $1.envelopes.count }
            let envelopes = Self.envelopes(of: next, commands: commands)
            let started = ContinuousClock.now
            // Asked at each commit: a log created by the first one defers only from the second on.
            guard processor.defersCommits else {
                let (result, bytes) = handleNow(next, envelopes, prefetched: Self.prefetched(of: next))
                settle(next, result, commands, started, bytes: bytes)
                continue
            }
            do {
                let ((outcomes, commit), bytes) = try counted {
                    try processor.handleDeferringCommit(
                        envelopes, fieldsChecked: next.allSatisfy(\.fieldsChecked),
                        prefetched: Self.prefetched(of: next))
                }
                if let done = inFlight, settleInFlight(done) {
                    // These were decided on top of a commit that diverged: their own write fails too
                    // (waited for here, so nothing is still being written), and they are decided again.
                    _ = try? commit.wait()
                    let (result, bytes) = handleNow(next, envelopes)
                    settle(next, result, commands, started, bytes: bytes)
                    inFlight = nil
                    continue
                }
                inFlight = (next, outcomes, commit, commands, started, bytes)
            } catch {
                // The commit before failed under this one (its append waits for it), or this one did.
                if let done = inFlight { settle(done.submissions, .failure(error), done.commands, done.started) }
                inFlight = nil
                settle(next, .failure(error), commands, started)
            }
        }
    }

    private static func envelopes(of submissions: [Submission], commands: Int) -> [CommandEnvelope] {
        // One submission's array as it is: copying it into a new one retained every string it holds.
        if submissions.count == 1 { return submissions[0].envelopes }
        var envelopes: [CommandEnvelope] = []
        envelopes.reserveCapacity(commands)
        for submission in submissions { envelopes += submission.envelopes }
        return envelopes
    }

    /// The states loaded ahead for a commit's submissions, in one table.
    private static func prefetched(of submissions: [Submission]) -> LoadedAhead {
        if submissions.count == 1 { return submissions[0].prefetched }
        var states = LoadedAhead()
        var commands = 0
        for submission in submissions {
            states.append(submission.prefetched, after: commands)
            commands += submission.envelopes.count
        }
        return states
    }

    /// `submissions`' commands (`envelopes`) decided and committed before this returns. A commit
    /// decided again (its prediction diverged) gets no states loaded ahead: they are as old as the
    /// ones it was decided against.
    private func handleNow(
        _ submissions: [Submission], _ envelopes: [CommandEnvelope],
        prefetched: LoadedAhead = LoadedAhead()
    ) -> (Result<[CommandOutcome], any Error>, bytes: Int) {
        counted { Result { try processor.handle(envelopes, fieldsChecked: submissions.allSatisfy(\.fieldsChecked), prefetched: prefetched) } }
    }

    /// `body`'s result and, when commits are traced, the bytes of the records it appended.
    private func counted<T>(_ body: () throws -> T) rethrows -> (T, bytes: Int) {
        tracing == nil ? (try body(), 0) : try AppendedBytes.counting(body)
    }

    /// Waits for a commit in flight and answers its submissions. A commit whose prediction diverged
    /// (`AppendDiverged`: another writer moved the log, or a state the processor held was behind)
    /// wrote nothing: its commands are decided again against the log and committed before anyone
    /// is answered, as if they had come now. Returns whether that happened.
    @discardableResult
    private func settleInFlight(_ done: InFlight) -> Bool {
        do {
            try done.commit.wait()
        } catch is AppendDiverged {
            let (result, bytes) = handleNow(done.submissions, Self.envelopes(of: done.submissions, commands: done.commands))
            settle(done.submissions, result, done.commands, done.started, bytes: bytes)
            return true
        } catch {
            settle(done.submissions, .failure(error), done.commands, done.started)
            return false
        }
        settle(done.submissions, .success(done.outcomes), done.commands, done.started, bytes: done.bytes + done.commit.bytesWritten)
        return false
    }

    /// Runs `run()` on a thread of its own; `stop()` ends it.
    public func start(name: String) {
        worker.start(name: name) { [self] in run() }
    }

    /// Takes no new submissions; `run()` commits and answers those queued, then returns.
    public func finish() {
        queue.close(error: nil)
    }

    /// `finish()`, then waits for the thread `start(name:)` began to answer everything and end.
    public func stop() {
        finish()
        worker.stop()
    }

    /// Stops at once: nothing more is committed, and what waits in the queue is never answered (a
    /// `send` whose output failed, or whose log did).
    public func cancel() {
        queue.cancel()
    }

    /// The next commit's submissions: whole ones, oldest first, within the command and stream
    /// budgets (the first always); none once finished with nothing queued, or cancelled. Without
    /// `waiting`, none when nothing is queued now. A job (`perform`) comes alone: it ends the
    /// submissions before it, and none joins it.
    private func take(waiting: Bool) -> [Submission] {
        var streams = StreamBudget(limit: streamsPerCommit)
        /// The pages the submissions taken change, as far as they were weighed (`send`'s slices).
        var pages = 0
        /// The first submission, whose streams are counted only once a second one is weighed
        /// beside it: `send`'s reads mostly fill a commit alone, and counting every command's
        /// stream showed in the writer's thread's profile for nothing.
        var uncounted: Submission?
        var first = true
        var jobFirst = false
        return
            (try? queue.takeAll(upToWeight: commandsPerCommit, waiting: waiting) { submission in
                defer { first = false }
                if first {
                    jobFirst = submission.job != nil
                    uncounted = submission
                    pages = submission.pages ?? 0
                    return true
                }
                guard !jobFirst, submission.job == nil else { return false }
                if let weight = submission.pages, pages + weight > pagesPerCommit { return false }
                if let earlier = uncounted {
                    // Counted already where `send` cut its read: 4,096 streams hashed again for every
                    // commit of one command per session in turn cost the writer's thread 5%.
                    if let counted = earlier.streams {
                        streams = StreamBudget(limit: streamsPerCommit, counted: counted)
                    } else {
                        _ = streams.admits(earlier.envelopes.lazy.map(\.stream))
                    }
                    uncounted = nil
                }
                guard streams.admits(submission.envelopes.lazy.map(\.stream)) else { return false }
                pages += submission.pages ?? 0
                return true
            }) ?? []
    }

    /// Answers each submission with its slice of the commit's outcomes, or with the commit's error.
    /// `bytes`: of the records the commit wrote (0 when untraced or unknown).
    private func settle(
        _ submissions: [Submission], _ result: Result<[CommandOutcome], any Error>, _ commands: Int,
        _ started: ContinuousClock.Instant, bytes: Int = 0
    ) {
        let duration = ContinuousClock.now - started
        // After the answers: the spans are the writer thread's work too, and no answer waits for them.
        let decided = tracing == nil ? nil : DefaultTracerClock.now
        defer { if let tracing, let decided, commands > 0 { trace(submissions, result, commands, bytes, duration, decided, tracing) } }
        switch result {
        case .success(let outcomes):
            var offset = 0
            for submission in submissions {
                let end = offset + submission.envelopes.count
                // A commit of one submission hands its outcomes over as they are, not copied.
                submission.answer(.success(submissions.count == 1 ? outcomes : Array(outcomes[offset..<end])))
                offset = end
            }
            committed(Commit(commands: commands, duration: duration, outcomes: outcomes))
        case .failure(let error):
            for submission in submissions { submission.answer(.failure(error)) }
            committed(Commit(commands: commands, duration: duration, outcomes: nil))
        }
    }

    /// The commit's span, and its traced submissions' commands' spans (`CommitTracing`).
    private func trace(
        _ submissions: [Submission], _ result: Result<[CommandOutcome], any Error>, _ commands: Int, _ bytes: Int, _ duration: Duration,
        _ decided: DefaultTracerClock.Instant, _ tracing: CommitTracing
    ) {
        let started = DefaultTracerClock.Instant(nanosecondsSinceEpoch: decided.nanosecondsSinceEpoch - UInt64(max(duration.nanosecondCount, 0)))
        var traced: [CommitTracing.Traced] = []
        var offset = 0
        for submission in submissions {
            if let trace = submission.trace {
                traced.append(.init(context: trace.context, queued: trace.queued, envelopes: submission.envelopes, offset: offset))
            } else {
                // A `send` line whose `meta` carried its producer's trace: a span of its own, under it.
                for (index, envelope) in submission.envelopes.enumerated() {
                    guard let trace = envelope.traceContext, let context = ServiceContext.extracted(traceparent: trace.traceparent) else { continue }
                    traced.append(.init(context: context, queued: started, envelopes: [envelope], offset: offset + index))
                }
            }
            offset += submission.envelopes.count
        }
        tracing.record(
            commit: traced, commands: commands, submissions: submissions.count, bytes: bytes, outcomes: try? result.get(), started: started,
            ended: decided)
    }
}
