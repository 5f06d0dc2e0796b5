#if Network
    import FlowLog
    import Foundation
    import NIOCore

    /// The log the server serves. The core is synchronous and a log object is not thread-safe for
    /// writes, so the box is handed only to the server's own threads: the writer appends, readers
    /// read (LMDB readers each use their own read transaction), never an event loop.
    final class LogHandle: @unchecked Sendable {
        let log: any LogStore
        init(_ log: any LogStore) { self.log = log }
    }

    /// A fixed set of threads that run blocking log reads off the event loops and the cooperative
    /// pool. Jobs run in the order they came.
    final class WorkerPool: @unchecked Sendable {
        private let condition = NSCondition()
        private var jobs: [() -> Void] = []
        private var head = 0
        private var stopping = false
        private var running = 0

        init(name: String, threads: Int) {
            for index in 0..<threads {
                let thread = Thread { [self] in loop() }
                thread.name = "\(name)-\(index)"
                running += 1
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

        private func enqueue(_ job: @escaping () -> Void) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            guard !stopping else { return false }
            jobs.append(job)
            condition.signal()
            return true
        }

        private func loop() {
            while true {
                condition.lock()
                while head == jobs.count, !stopping { condition.wait() }
                if head == jobs.count {
                    running -= 1
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                let job = jobs[head]
                head += 1
                if head > 1024, head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                job()
            }
        }

        /// Runs what was queued, then ends the threads and waits for them.
        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            while running > 0 { condition.wait() }
            condition.unlock()
        }
    }

    /// Bytes from a blocking producer (a thread reading the log) to an async consumer (a response
    /// body), at most `capacity` chunks ahead: the producer waits for the consumer, so a slow client
    /// holds memory for a few chunks, never for the whole answer.
    final class ChunkChannel: @unchecked Sendable {
        struct Cancelled: Error {}

        private let condition = NSCondition()
        private var chunks: [ByteBuffer] = []
        private var finished = false
        private var failure: (any Error)?
        private var cancelled = false
        private var waiter: CheckedContinuation<ByteBuffer?, any Error>?
        private let capacity: Int

        init(capacity: Int = 4) {
            self.capacity = capacity
        }

        /// Producer: waits for room; throws `Cancelled` once the consumer is gone.
        func put(_ chunk: ByteBuffer) throws {
            condition.lock()
            while chunks.count >= capacity, !cancelled { condition.wait() }
            if cancelled {
                condition.unlock()
                throw Cancelled()
            }
            if let waiter {
                self.waiter = nil
                condition.unlock()
                waiter.resume(returning: chunk)
                return
            }
            chunks.append(chunk)
            condition.unlock()
        }

        /// Producer: no more chunks (or a failure to report after those sent).
        func finish(error: (any Error)? = nil) {
            condition.lock()
            finished = true
            failure = error
            let waiter = self.waiter
            self.waiter = nil
            condition.unlock()
            if let waiter {
                if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
            }
        }

        /// Consumer: the next chunk, `nil` at the end.
        func next() async throws -> ByteBuffer? {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
                condition.lock()
                if !chunks.isEmpty {
                    let chunk = chunks.removeFirst()
                    condition.broadcast()
                    condition.unlock()
                    continuation.resume(returning: chunk)
                } else if finished {
                    let failure = self.failure
                    condition.unlock()
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
                } else {
                    waiter = continuation
                    condition.unlock()
                }
            }
        }

        /// Consumer: gives up (the client went away); the producer's next `put` throws.
        func cancel() {
            condition.lock()
            cancelled = true
            condition.broadcast()
            condition.unlock()
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
