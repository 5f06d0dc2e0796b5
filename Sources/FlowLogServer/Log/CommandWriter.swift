#if Network
import FlowDomain
import FlowLog
import Foundation

/// The one thread that appends: it owns the `CommandProcessor` and drains every request that
/// arrived while it was committing into one `handle(batch)`, so concurrent requests share one
/// durable commit (group commit). A request is answered only after that commit returns.
final class CommandWriter: @unchecked Sendable {
    private struct Pending {
        let envelopes: [CommandEnvelope]
        let continuation: CheckedContinuation<[CommandOutcome], any Error>
    }

    /// The writing thread; its lock also guards `queue`.
    private let worker = WorkerThread()
    private var condition: NSCondition { worker.condition }
    private var queue: [Pending] = []
    private let processor: CommandProcessor
    private let metrics: ServerMetrics
    private let onCommit: @Sendable () -> Void
    /// Commands a commit takes at most, unless one request alone holds more.
    private let commandsPerCommit: Int
    /// Streams a commit's requests name at most, unless one request alone names more (`StreamBudget`).
    private let streamsPerCommit: Int

    init(log: LogHandle, metrics: ServerMetrics, commandsPerCommit: Int = 20_000,
         streamsPerCommit: Int = SendSession.defaultStreamsPerCommit, onCommit: @escaping @Sendable () -> Void) {
        let clock = SystemClock()
        processor = CommandProcessor(log: log.log, clock: clock, ids: UUIDv7Generator(clock: clock))
        self.metrics = metrics
        self.commandsPerCommit = commandsPerCommit
        self.streamsPerCommit = streamsPerCommit
        self.onCommit = onCommit
        worker.start(name: "flowlog-writer") { [self] in loop() }
    }

    /// Decides and appends `envelopes` (in one commit, possibly shared with other requests) and
    /// returns their answers once every accepted event is durable.
    func submit(_ envelopes: [CommandEnvelope]) async throws -> [CommandOutcome] {
        if envelopes.isEmpty { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            if worker.isStopping {
                condition.unlock()
                continuation.resume(throwing: APIError.unavailable("The server is shutting down and takes no more commands; send them again once it is back."))
                return
            }
            queue.append(Pending(envelopes: envelopes, continuation: continuation))
            // One waiter to wake, the writer: `stop()` waits on the same condition only once
            // stopping, and a request that finds the writer stopping never gets here.
            condition.signal()
            condition.unlock()
        }
    }

    /// Runs on the worker's thread, holding its lock except while it commits; returns once asked to
    /// stop with nothing left in the queue.
    private func loop() {
        while true {
            while queue.isEmpty, !worker.isStopping { condition.wait() }
            if queue.isEmpty { return }
            var taken = 0
            var count = 0
            var streams = StreamBudget(limit: streamsPerCommit)
            while taken < queue.count, count == 0 || count + queue[taken].envelopes.count <= commandsPerCommit,
                  streams.admits(queue[taken].envelopes.lazy.map(\.stream)) {
                count += queue[taken].envelopes.count
                taken += 1
            }
            let batch = Array(queue[0..<taken])
            queue.removeFirst(taken)
            condition.unlock()
            commit(batch, commands: count)
            condition.lock()
        }
    }

    private func commit(_ batch: [Pending], commands: Int) {
        var envelopes: [CommandEnvelope] = []
        envelopes.reserveCapacity(commands)
        for pending in batch { envelopes.append(contentsOf: pending.envelopes) }
        let started = ContinuousClock.now
        let result = Result {
            return try processor.handle(envelopes)
        }
        metrics.recordCommit(duration: ContinuousClock.now - started, commands: commands)
        switch result {
        case .success(let outcomes):
            metrics.recordOutcomes(outcomes)
            onCommit()
            var offset = 0
            for pending in batch {
                let slice = Array(outcomes[offset..<offset + pending.envelopes.count])
                offset += pending.envelopes.count
                pending.continuation.resume(returning: slice)
            }
        case .failure(let error):
            let failure = APIError.from(error)
            for pending in batch { pending.continuation.resume(throwing: failure) }
        }
    }

    /// Takes no new commands, answers those queued, and returns once the thread is done.
    func stop() {
        worker.stop()
    }
}
#endif
