#if Network
    import FlowLogBasics
    import FlowLogStore
    import Foundation
    import NIOCore

    /// The log the server serves. The core is synchronous and a log object is not thread-safe for
    /// writes, so the box is handed only to the server's own threads: the writer appends, readers
    /// read (LMDB readers each use their own read transaction), never an event loop.
    ///
    /// Unchecked `Sendable`: the log object is shared by the server's threads, one writer and readers beside it, as its backend allows.
    final class LogHandle: @unchecked Sendable {
        let log: any LogStore
        init(_ log: any LogStore) { self.log = log }
    }

    /// A fixed set of threads that run blocking log reads off the event loops and the cooperative
    /// pool. Jobs run in the order they came.
    final class WorkerPool: Sendable {
        private struct Jobs {
            var queued: [@Sendable () -> Void] = []
            var head = 0
            var stopping = false
            var running: Int
        }

        /// The pool's threads wait here for jobs, and `stop()` for the threads.
        private let jobs: ConditionBox<Jobs>

        init(name: String, threads: Int) {
            jobs = ConditionBox(Jobs(running: threads))
            for index in 0..<threads {
                let thread = Thread { [self] in loop() }
                thread.name = "\(name)-\(index)"
                thread.start()
            }
        }

        /// Runs `body` on one of the pool's threads and returns what it returns.
        func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let accepted = enqueue { continuation.resume(with: Result { try body() }) }
                if !accepted { continuation.resume(throwing: APIError.unavailable("The server is shutting down; try again in a moment.")) }
            }
        }

        private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
            jobs.withLock { jobs in
                guard !jobs.stopping else { return false }
                jobs.queued.append(job)
                self.jobs.signal()
                return true
            }
        }

        private func loop() {
            while true {
                let next = jobs.withLock(waitingUntil: { $0.head < $0.queued.count || $0.stopping }) { jobs -> (@Sendable () -> Void)? in
                    if jobs.head == jobs.queued.count {
                        jobs.running -= 1
                        self.jobs.broadcast()
                        return nil
                    }
                    let job = jobs.queued[jobs.head]
                    jobs.head += 1
                    if jobs.head > 1024, jobs.head * 2 > jobs.queued.count {
                        jobs.queued.removeFirst(jobs.head)
                        jobs.head = 0
                    }
                    return job
                }
                guard let next else { return }
                next()
            }
        }

        /// Runs what was queued, then ends the threads and waits for them.
        func stop() {
            jobs.withLock { jobs in
                jobs.stopping = true
                self.jobs.broadcast()
            }
            jobs.withLock(waitingUntil: { $0.running == 0 }) { _ in }
        }
    }

    /// Bytes from a blocking producer (a thread reading the log) to an async consumer (a response
    /// body), at most `capacity` chunks ahead: the producer waits for the consumer, so a slow client
    /// holds memory for a few chunks, never for the whole answer.
    final class ChunkChannel: Sendable {
        struct Cancelled: Error {}

        private struct Chunks {
            var queued: [ByteBuffer] = []
            var finished = false
            var failure: (any Error)?
            var cancelled = false
            var waiter: CheckedContinuation<ByteBuffer?, any Error>?
        }

        /// The producer waits here for room; a continuation is resumed only after the lock is let go.
        private let chunks = ConditionBox(Chunks())
        private let capacity: Int

        init(capacity: Int = 4) {
            self.capacity = capacity
        }

        /// Producer: waits for room; throws `Cancelled` once the consumer is gone.
        func put(_ chunk: ByteBuffer) throws {
            let capacity = capacity
            let waiter = try chunks.withLock(waitingUntil: { $0.queued.count < capacity || $0.cancelled }) {
                chunks -> CheckedContinuation<ByteBuffer?, any Error>? in
                if chunks.cancelled { throw Cancelled() }
                if let waiter = chunks.waiter {
                    chunks.waiter = nil
                    return waiter
                }
                chunks.queued.append(chunk)
                return nil
            }
            waiter?.resume(returning: chunk)
        }

        /// Producer: no more chunks (or a failure to report after those sent).
        func finish(error: (any Error)? = nil) {
            let waiter = chunks.withLock { chunks in
                chunks.finished = true
                chunks.failure = error
                let waiter = chunks.waiter
                chunks.waiter = nil
                return waiter
            }
            if let waiter {
                if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
            }
        }

        /// Consumer: the next chunk, `nil` at the end.
        func next() async throws -> ByteBuffer? {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
                let ready = chunks.withLock { chunks -> Result<ByteBuffer?, any Error>? in
                    if !chunks.queued.isEmpty {
                        let chunk = chunks.queued.removeFirst()
                        self.chunks.broadcast()
                        return .success(chunk)
                    }
                    if chunks.finished { return chunks.failure.map { .failure($0) } ?? .success(nil) }
                    chunks.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }

        /// Consumer: gives up (the client went away); the producer's next `put` throws.
        func cancel() {
            chunks.withLock { chunks in
                chunks.cancelled = true
                self.chunks.broadcast()
            }
        }
    }

    /// An `OutputSink` (what the core's export writes to) that feeds a `ChunkChannel`.
    final class ChannelSink: OutputSink {
        private let channel: ChunkChannel
        init(_ channel: ChunkChannel) { self.channel = channel }
        func write(_ bytes: [UInt8]) throws { try channel.put(ByteBuffer(bytes: bytes)) }
    }

    /// Runs `body` on a thread of its own (a long export that must not hold a pooled reader).
    func runOnOwnThread(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { body() }
        thread.name = name
        thread.start()
    }
#endif
