#if Network
    import FlowDomain
    import FlowLog
    import Foundation
    import NIOCore

    /// Which events a subscriber wants: its streams and types (empty: all), from a position on.
    struct SubscriptionFilter: Sendable {
        var streams: Set<String> = []
        var kinds: Set<AppEvent.Kind> = []
        var fromPosition = 1

        var isEverything: Bool { streams.isEmpty && kinds.isEmpty }

        func accepts(stream: String, kind: AppEvent.Kind, position: Int) -> Bool {
            position >= fromPosition && (streams.isEmpty || streams.contains(stream)) && (kinds.isEmpty || kinds.contains(kind))
        }
    }

    /// Server-sent-event frames for a run of events, each `id: POSITION`, `event: event`, `data: ENVELOPE`.
    struct FrameBatch {
        var bytes = JSONWriter(capacity: 1 << 16)
        /// Per event: where its frame ends in `bytes`, its stream, type and position.
        var ends: [Int] = []
        var streams: [String] = []
        var kinds: [AppEvent.Kind] = []
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
    final class Subscriber: @unchecked Sendable {
        enum Delivery {
            case chunk(ByteBuffer)
            case closed(CloseReason)
        }

        enum CloseReason: String {
            case overflow = "fell too far behind"
            case shutdown = "the server is shutting down"
        }

        let filter: SubscriptionFilter
        private let limit: Int
        private let lock = NSLock()
        private var chunks: [ByteBuffer] = []
        private var queuedBytes = 0
        private var closed: CloseReason?
        private var waiter: CheckedContinuation<Delivery, Never>?
        private(set) var lastDelivery = ContinuousClock.now
        /// Finishes when the subscriber must stop at once, even in the middle of a write.
        let abort: AsyncStream<Void>
        private let abortSource: AsyncStream<Void>.Continuation

        init(filter: SubscriptionFilter, bufferBytes: Int) {
            self.filter = filter
            self.limit = bufferBytes
            (abort, abortSource) = AsyncStream<Void>.makeStream()
        }

        /// Follower: queues frames; past the limit the subscriber is closed instead.
        func enqueue(_ chunk: ByteBuffer) {
            lock.lock()
            guard closed == nil else {
                lock.unlock()
                return
            }
            lastDelivery = .now
            if let waiter {
                self.waiter = nil
                lock.unlock()
                waiter.resume(returning: .chunk(chunk))
                return
            }
            if queuedBytes + chunk.readableBytes > limit, queuedBytes > 0 {
                lock.unlock()
                close(.overflow)
                return
            }
            chunks.append(chunk)
            queuedBytes += chunk.readableBytes
            lock.unlock()
        }

        var idleSince: ContinuousClock.Instant {
            lock.lock()
            defer { lock.unlock() }
            return lastDelivery
        }

        /// Response: the next frames, or why the subscription ended.
        func next() async -> Delivery {
            await withCheckedContinuation { continuation in
                lock.lock()
                if !chunks.isEmpty {
                    let chunk = chunks.removeFirst()
                    queuedBytes -= chunk.readableBytes
                    lock.unlock()
                    continuation.resume(returning: .chunk(chunk))
                } else if let closed {
                    lock.unlock()
                    continuation.resume(returning: .closed(closed))
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        }

        var isClosed: Bool {
            lock.lock()
            defer { lock.unlock() }
            return closed != nil
        }

        func close(_ reason: CloseReason) {
            lock.lock()
            guard closed == nil else {
                lock.unlock()
                return
            }
            closed = reason
            chunks.removeAll()
            queuedBytes = 0
            let waiter = self.waiter
            self.waiter = nil
            lock.unlock()
            waiter?.resume(returning: .closed(reason))
            if reason == .overflow { abortSource.finish() }
        }
    }

    /// Follows the log (`LogFollowing.waitForEvents`, so commits of other processes count too) on a
    /// thread of its own, encodes each new event's frame once and hands it to every live subscriber.
    /// A subscriber first reads what it missed from the log, then joins under the follower's lock at
    /// the follower's head, so it gets every event exactly once and in order.
    final class EventFollower: @unchecked Sendable {
        private let handle: LogHandle
        private let metrics: ServerMetrics
        private let lock = NSLock()
        private var head: Int
        private var live: [ObjectIdentifier: Subscriber] = [:]
        private var admitted = 0
        private var stopped = false
        private var finished = false
        private let finishedCondition = NSCondition()
        let maximumSubscribers: Int
        let bufferBytes: Int
        let heartbeat: Duration

        init(log: LogHandle, metrics: ServerMetrics, maximumSubscribers: Int, bufferBytes: Int, heartbeat: Duration = .seconds(15)) throws {
            handle = log
            self.metrics = metrics
            self.maximumSubscribers = maximumSubscribers
            self.bufferBytes = bufferBytes
            self.heartbeat = heartbeat
            head = try log.log.lastPosition()
            metrics.setHead(head)
            let thread = Thread { [self] in loop() }
            thread.name = "flowlog-follower"
            thread.start()
        }

        /// The last position handed to subscribers.
        var currentHead: Int {
            lock.lock()
            defer { lock.unlock() }
            return head
        }

        /// A place for one more subscriber, or 503 past the cap.
        func admit(filter: SubscriptionFilter) throws -> Subscriber {
            lock.lock()
            defer { lock.unlock() }
            guard !stopped else { throw APIError.unavailable("The server is shutting down; reconnect in a moment.") }
            guard admitted < maximumSubscribers else {
                throw APIError.unavailable("The server already has \(maximumSubscribers) subscribers, its limit; try again later.")
            }
            admitted += 1
            metrics.setSubscribers(admitted)
            return Subscriber(filter: filter, bufferBytes: bufferBytes)
        }

        /// Joins the live subscribers when `next` follows the head; otherwise returns the head to read up to.
        func goLive(_ subscriber: Subscriber, next: Int) -> Int? {
            lock.lock()
            defer { lock.unlock() }
            if stopped {
                subscriber.close(.shutdown)
                return nil
            }
            guard next > head else { return head }
            live[ObjectIdentifier(subscriber)] = subscriber
            return nil
        }

        func remove(_ subscriber: Subscriber) {
            lock.lock()
            live[ObjectIdentifier(subscriber)] = nil
            admitted -= 1
            metrics.setSubscribers(admitted)
            lock.unlock()
        }

        private func loop() {
            let log = handle.log
            var heartbeatCheck = ContinuousClock.now
            while true {
                lock.lock()
                let known = head
                let stop = stopped
                lock.unlock()
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
            finishedCondition.lock()
            finished = true
            finishedCondition.broadcast()
            finishedCondition.unlock()
        }

        private func publish(from first: Int, through last: Int) throws {
            // With nobody live, nothing is read or encoded: the head moves on, and a subscriber that
            // joins later reads up to it from the log first (`goLive`), under the same lock.
            lock.lock()
            if live.isEmpty {
                head = last
                lock.unlock()
                metrics.setHead(last)
                return
            }
            lock.unlock()
            var position = first
            while position <= last {
                var batch = FrameBatch()
                let end = min(last, position + 1023)
                try handle.log.forEachEvent(from: position, through: end) { record in
                    batch.add(record)
                    return true
                }
                guard let reached = batch.positions.last else { return }
                lock.lock()
                if !live.isEmpty {
                    let shared = batch.all()
                    for subscriber in live.values {
                        if subscriber.filter.isEverything, subscriber.filter.fromPosition <= batch.positions[0] {
                            subscriber.enqueue(shared)
                        } else if let selected = batch.selected(by: subscriber.filter) {
                            subscriber.enqueue(selected)
                        }
                    }
                    live = live.filter { !$0.value.isClosed }
                }
                head = reached
                lock.unlock()
                metrics.setHead(reached)
                position = reached + 1
            }
        }

        private func sendHeartbeats() {
            let now = ContinuousClock.now
            lock.lock()
            let idle = live.values.filter { now - $0.idleSince >= heartbeat }
            lock.unlock()
            for subscriber in idle { subscriber.enqueue(ByteBuffer(string: ": heartbeat\n\n")) }
        }

        /// Ends every subscription and the following thread.
        func stop() {
            lock.lock()
            stopped = true
            let subscribers = Array(live.values)
            lock.unlock()
            for subscriber in subscribers { subscriber.close(.shutdown) }
            finishedCondition.lock()
            while !finished { finishedCondition.wait() }
            finishedCondition.unlock()
        }

        /// Closes the live subscriptions (graceful shutdown begins) without stopping the thread yet.
        func closeSubscribers() {
            lock.lock()
            let subscribers = Array(live.values)
            lock.unlock()
            for subscriber in subscribers { subscriber.close(.shutdown) }
        }
    }
#endif
