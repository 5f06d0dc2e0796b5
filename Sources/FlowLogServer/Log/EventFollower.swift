#if Network
    import FlowLogBasics
    import FlowLogStore
    import Foundation
    import NIOCore
    import Synchronization

    /// Which events a subscriber wants: its streams and types (empty: all), from a position on.
    struct SubscriptionFilter: Sendable {
        var streams: Set<String> = []
        var kinds: Set<LogDecider.Event.Kind> = []
        var fromPosition = 1

        var isEverything: Bool { streams.isEmpty && kinds.isEmpty }

        func accepts(stream: String, kind: LogDecider.Event.Kind, position: Int) -> Bool {
            position >= fromPosition && (streams.isEmpty || streams.contains(stream)) && (kinds.isEmpty || kinds.contains(kind))
        }
    }

    /// Server-sent-event frames for a run of events, each `id: POSITION`, `event: event`, `data: ENVELOPE`.
    struct FrameBatch {
        var bytes = JSONWriter(capacity: 1 << 16)
        /// Per event: where its frame ends in `bytes`, its stream, type and position.
        var ends: [Int] = []
        var streams: [String] = []
        var kinds: [LogDecider.Event.Kind] = []
        var positions: [Int] = []

        mutating func add(_ record: RecordedEvent) {
            bytes.raw("id: ")
            bytes.rawInt(record.position)
            bytes.newline()
            bytes.raw("event: event")
            bytes.newline()
            bytes.raw("data: ")
            FlowJSON.writeEvent(record, into: &bytes)
            bytes.newline()
            bytes.newline()
            ends.append(bytes.bytes.count)
            streams.append(record.stream)
            kinds.append(record.event.kind)
            positions.append(record.position)
        }

        var isEmpty: Bool { ends.isEmpty }

        /// Every frame, as one buffer (shared by every subscriber that takes everything).
        func all() -> ByteBuffer { ByteBuffer(bytes: bytes.bytes) }

        /// The frames `filter` accepts, or `nil` when none is.
        func selected(by filter: SubscriptionFilter) -> ByteBuffer? {
            var buffer: ByteBuffer?
            var start = 0
            for index in ends.indices {
                defer { start = ends[index] }
                guard filter.accepts(stream: streams[index], kind: kinds[index], position: positions[index]) else { continue }
                if buffer == nil { buffer = ByteBuffer() }
                buffer!.writeBytes(bytes.bytes[start..<ends[index]])
            }
            return buffer
        }

        /// Reads the frames of positions `from...through` (at most `limit` events) that `filter`
        /// accepts; returns them and the last position examined.
        static func read(_ log: any LogStore, from: Int, through: Int, filter: SubscriptionFilter, limit: Int) throws -> (ByteBuffer, Int) {
            var batch = FrameBatch()
            var last = from - 1
            var examined = 0
            try log.forEachEvent(from: from, through: through) { record in
                last = record.position
                examined += 1
                if filter.accepts(stream: record.stream, kind: record.event.kind, position: record.position) { batch.add(record) }
                return batch.ends.count < limit && examined < limit * 8
            }
            return (batch.isEmpty ? ByteBuffer() : batch.all(), max(last, from - 1))
        }
    }

    /// One `GET /events/subscribe` client: a bounded queue of frames the follower fills and the
    /// response drains. A client that falls further behind than the queue holds is disconnected
    /// (it reconnects with `Last-Event-ID` and reads the rest from the log).
    final class Subscriber: Sendable {
        enum Delivery {
            case chunk(ByteBuffer)
            case closed(CloseReason)
        }

        enum CloseReason: String {
            case overflow = "fell too far behind"
            case shutdown = "the server is shutting down"
        }

        /// The queue; a continuation is resumed only after the lock is let go.
        private struct Queue {
            var chunks: [ByteBuffer] = []
            var queuedBytes = 0
            var closed: CloseReason?
            var waiter: CheckedContinuation<Delivery, Never>?
            var lastDelivery = ContinuousClock.now
        }

        let filter: SubscriptionFilter
        private let limit: Int
        private let queue = Mutex(Queue())
        /// Finishes when the subscriber must stop at once, even in the middle of a write.
        let abort: AsyncStream<Void>
        private let abortSource: AsyncStream<Void>.Continuation

        init(filter: SubscriptionFilter, bufferBytes: Int) {
            self.filter = filter
            self.limit = bufferBytes
            (abort, abortSource) = AsyncStream<Void>.makeStream()
        }

        /// What `enqueue` does once the lock is let go.
        private enum Enqueued {
            case queued
            case handed(CheckedContinuation<Delivery, Never>)
            case overflowed
        }

        /// Follower: queues frames; past the limit the subscriber is closed instead.
        func enqueue(_ chunk: ByteBuffer) {
            let limit = limit
            let outcome = queue.withLock { queue -> Enqueued in
                guard queue.closed == nil else { return .queued }
                queue.lastDelivery = .now
                if let waiter = queue.waiter {
                    queue.waiter = nil
                    return .handed(waiter)
                }
                if queue.queuedBytes + chunk.readableBytes > limit, queue.queuedBytes > 0 { return .overflowed }
                queue.chunks.append(chunk)
                queue.queuedBytes += chunk.readableBytes
                return .queued
            }
            switch outcome {
            case .queued: break
            case .handed(let waiter): waiter.resume(returning: .chunk(chunk))
            case .overflowed: close(.overflow)
            }
        }

        var idleSince: ContinuousClock.Instant {
            queue.withLock { $0.lastDelivery }
        }

        /// Response: the next frames, or why the subscription ended.
        func next() async -> Delivery {
            await withCheckedContinuation { continuation in
                let ready = queue.withLock { queue -> Delivery? in
                    if !queue.chunks.isEmpty {
                        let chunk = queue.chunks.removeFirst()
                        queue.queuedBytes -= chunk.readableBytes
                        return .chunk(chunk)
                    }
                    if let closed = queue.closed { return .closed(closed) }
                    queue.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        var isClosed: Bool {
            queue.withLock { $0.closed != nil }
        }

        func close(_ reason: CloseReason) {
            let (first, waiter) = queue.withLock { queue -> (Bool, CheckedContinuation<Delivery, Never>?) in
                guard queue.closed == nil else { return (false, nil) }
                queue.closed = reason
                queue.chunks.removeAll()
                queue.queuedBytes = 0
                let waiter = queue.waiter
                queue.waiter = nil
                return (true, waiter)
            }
            guard first else { return }
            waiter?.resume(returning: .closed(reason))
            if reason == .overflow { abortSource.finish() }
        }
    }

    /// Follows the log (`LogFollowing.waitForEvents`, so commits of other processes count too) on a
    /// thread of its own, encodes each new event's frame once and hands it to every live subscriber.
    /// A subscriber first reads what it missed from the log, then joins under the follower's lock at
    /// the follower's head, so it gets every event exactly once and in order. Under that lock the
    /// follower takes subscribers' own locks (never the other way round), and never reads the log.
    final class EventFollower: Sendable {
        private struct Subscribers {
            var head: Int
            var live: [ObjectIdentifier: Subscriber] = [:]
            var admitted = 0
            var stopped = false
        }

        private let handle: LogHandle
        private let metrics: ServerMetrics
        private let state: Mutex<Subscribers>
        /// Whether the following thread has ended: `stop()` waits for it.
        private let finished = ConditionBox(false)
        let maximumSubscribers: Int
        let bufferBytes: Int
        let heartbeat: Duration

        init(log: LogHandle, metrics: ServerMetrics, maximumSubscribers: Int, bufferBytes: Int, heartbeat: Duration = .seconds(15)) throws {
            handle = log
            self.metrics = metrics
            self.maximumSubscribers = maximumSubscribers
            self.bufferBytes = bufferBytes
            self.heartbeat = heartbeat
            let head = try log.log.lastPosition()
            state = Mutex(Subscribers(head: head))
            metrics.projectors.setHead(head)
            let thread = Thread { [self] in loop() }
            thread.name = "flowlog-follower"
            thread.start()
        }

        /// The last position handed to subscribers.
        var currentHead: Int {
            state.withLock { $0.head }
        }

        /// A place for one more subscriber, or 503 past the cap.
        func admit(filter: SubscriptionFilter) throws -> Subscriber {
            try state.withLock { state in
                guard !state.stopped else { throw APIError.unavailable("The server is shutting down; reconnect in a moment.") }
                guard state.admitted < maximumSubscribers else {
                    throw APIError.unavailable("The server already has \(maximumSubscribers) subscribers, its limit; try again later.")
                }
                state.admitted += 1
                metrics.setSubscribers(state.admitted)
                return Subscriber(filter: filter, bufferBytes: bufferBytes)
            }
        }

        /// Joins the live subscribers when `next` follows the head; otherwise returns the head to read up to.
        func goLive(_ subscriber: Subscriber, next: Int) -> Int? {
            state.withLock { state in
                if state.stopped {
                    subscriber.close(.shutdown)
                    return nil
                }
                guard next > state.head else { return state.head }
                state.live[ObjectIdentifier(subscriber)] = subscriber
                return nil
            }
        }

        func remove(_ subscriber: Subscriber) {
            state.withLock { state in
                state.live[ObjectIdentifier(subscriber)] = nil
                state.admitted -= 1
                metrics.setSubscribers(state.admitted)
            }
        }

        private func loop() {
            let log = handle.log
            var heartbeatCheck = ContinuousClock.now
            while true {
                let (known, stop) = state.withLock { ($0.head, $0.stopped) }
                if stop { break }
                do {
                    let started = ContinuousClock.now
                    let last = try log.waitForEvents(after: known, timeout: 0.2)
                    if last > known {
                        try publish(from: known + 1, through: last)
                    } else if ContinuousClock.now - started < .milliseconds(20) {
                        Thread.sleep(forTimeInterval: 0.05)  // a log that does not wait (in memory)
                    }
                } catch {
                    Thread.sleep(forTimeInterval: 0.5)
                }
                if ContinuousClock.now - heartbeatCheck > .seconds(1) {
                    heartbeatCheck = .now
                    sendHeartbeats()
                }
            }
            finished.withLock { finished in
                finished = true
                self.finished.broadcast()
            }
        }

        private func publish(from first: Int, through last: Int) throws {
            // With nobody live, nothing is read or encoded: the head moves on, and a subscriber that
            // joins later reads up to it from the log first (`goLive`), under the same lock.
            let nobodyLive = state.withLock { state in
                guard state.live.isEmpty else { return false }
                state.head = last
                return true
            }
            if nobodyLive {
                metrics.projectors.setHead(last)
                return
            }
            var position = first
            while position <= last {
                var batch = FrameBatch()
                let end = min(last, position + 1023)
                try handle.log.forEachEvent(from: position, through: end) { record in
                    batch.add(record)
                    return true
                }
                guard let reached = batch.positions.last else { return }
                state.withLock { state in
                    if !state.live.isEmpty {
                        let shared = batch.all()
                        for subscriber in state.live.values {
                            if subscriber.filter.isEverything, subscriber.filter.fromPosition <= batch.positions[0] {
                                subscriber.enqueue(shared)
                            } else if let selected = batch.selected(by: subscriber.filter) {
                                subscriber.enqueue(selected)
                            }
                        }
                        state.live = state.live.filter { !$0.value.isClosed }
                    }
                    state.head = reached
                }
                metrics.projectors.setHead(reached)
                position = reached + 1
            }
        }

        private func sendHeartbeats() {
            let now = ContinuousClock.now
            let heartbeat = heartbeat
            let idle = state.withLock { state in state.live.values.filter { now - $0.idleSince >= heartbeat } }
            for subscriber in idle { subscriber.enqueue(ByteBuffer(string: ": heartbeat\n\n")) }
        }

        /// Ends every subscription and the following thread.
        func stop() {
            let subscribers = state.withLock { state in
                state.stopped = true
                return Array(state.live.values)
            }
            for subscriber in subscribers { subscriber.close(.shutdown) }
            finished.withLock(waitingUntil: { $0 }) { _ in }
        }

        /// Closes the live subscriptions (graceful shutdown begins) without stopping the thread yet.
        func closeSubscribers() {
            let subscribers = state.withLock { Array($0.live.values) }
            for subscriber in subscribers { subscriber.close(.shutdown) }
        }
    }
#endif
