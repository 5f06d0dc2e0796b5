#if Network
    import FlowLogHistory
    import Foundation
    import Hummingbird
    import Logging
    import NIOCore
    import ServiceLifecycle
    import Synchronization

    /// `GET /events` (an export, streamed in constant memory) and `GET /events/subscribe` (server-sent
    /// events of every commit, live).
    struct EventRoutes {
        let handle: LogHandle
        let readers: WorkerPool
        let follower: EventFollower
        let limits: ServerLimits
        let exports: ExportSlots
        let logger: Logger

        func register(_ routes: RouteTable) {
            routes.add(.get, "/events", scope: .read) { request, _ in try export(request) }
            routes.add(.get, "/events/subscribe", scope: .read, queryToken: true) { request, _ in try subscribe(request) }
        }

        // MARK: Export

        static func format(accept: String?) -> EventExport.Format? {
            guard let accept, !accept.trimmingCharacters(in: .whitespaces).isEmpty else { return .ndjson }
            for item in accept.split(separator: ",") {
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                if parts.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "") == "q=0" }) { continue }
                switch parts.first ?? "" {
                case "application/x-ndjson", "*/*", "application/*": return .ndjson
                case "text/csv", "text/*": return .csv
                default: continue
                }
            }
            return nil
        }

        func export(_ request: Request) throws -> Response {
            let query = Query(request)
            var filter = ExportFilter()
            filter.streams = Set(try query.identifiers("stream"))
            filter.correlationIds = Set(try query.identifiers("correlationId"))
            filter.types = try query.eventTypes("type")
            filter.since = try query.time("since")
            filter.until = try query.time("until")
            filter.fromPosition = try query.integer("fromPosition", in: 1...Int.max, default: 1)!
            filter.toPosition = try query.integer("toPosition", in: 1...Int.max)
            guard let format = Self.format(accept: request.headers[.accept]) else {
                throw APIError(
                    status: .notAcceptable, code: "notAcceptable",
                    message:
                        "GET /events writes application/x-ndjson or text/csv; ask for one of them in Accept, not \(Query.shown(request.headers[.accept] ?? ""))."
                )
            }
            try exports.take()
            let channel = ChunkChannel(capacity: 4)
            let selection = filter
            let handle = self.handle
            let exports = self.exports
            runOnOwnThread(name: "flowlog-export") {
                defer { exports.give() }
                do {
                    try EventExport(format: format, filter: selection).run(from: handle.log, to: ChannelSink(channel))
                    channel.finish()
                } catch {
                    channel.finish(error: error)
                }
            }
            let logger = self.logger
            let name = format == .csv ? "events.csv" : "events.ndjson"
            return Response(
                status: .ok,
                headers: [
                    .contentType: format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson",
                    .contentDisposition: "attachment; filename=\"\(name)\"",
                    .cacheControl: "no-store",
                ],
                body: ResponseBody { writer in
                    do {
                        while let chunk = try await channel.next() { try await writer.write(chunk) }
                    } catch {
                        channel.cancel()
                        if !(error is ChunkChannel.Cancelled) { logger.warning("export cut short", metadata: ["error": .string("\(error)")]) }
                        throw error
                    }
                    try await writer.finish(nil)
                })
        }

        // MARK: Subscribe

        func subscribe(_ request: Request) throws -> Response {
            let query = Query(request)
            var filter = SubscriptionFilter()
            filter.streams = Set(try query.identifiers("stream"))
            filter.kinds = try query.eventKinds("type")
            let from = try query.integer("from", in: 1...Int.max)
            var after: Int?
            if let header = request.headers[.init("Last-Event-ID")!] {
                // The stream resumes at the next position, so the last one 64 bits hold is refused
                // here rather than overflowing below: no log holds it.
                guard let id = Int(header.trimmingCharacters(in: .whitespaces)), (0..<Int.max).contains(id) else {
                    throw APIError.invalidParameter(
                        "Last-Event-ID must be a position (an integer from 0 through \(Int.max - 1)), not \(Query.shown(header)).")
                }
                after = id
            }
            let start = after.map { $0 + 1 } ?? from ?? (follower.currentHead + 1)
            filter.fromPosition = start
            let selection = filter
            let subscriber = try follower.admit(filter: filter)
            let follower = self.follower
            let readers = self.readers
            let handle = self.handle
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream",
                    .cacheControl: "no-store",
                    .init("X-Accel-Buffering")!: "no",
                ],
                body: ResponseBody { writer in
                    defer { follower.remove(subscriber) }
                    try await writer.write(ByteBuffer(string: "retry: 3000\n\n"))
                    // Ends the response without its last chunk when the client left or the subscriber was cut off.
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await untilAborted(subscriber.abort) {
                            try await withGracefulShutdownHandler {
                                var next = start
                                // What the subscriber missed, from the log; then live from the follower.
                                while !subscriber.isClosed {
                                    guard let head = follower.goLive(subscriber, next: next) else { break }
                                    let from = next
                                    let (frames, last) = try await readers.run {
                                        try FrameBatch.read(handle.log, from: from, through: head, filter: selection, limit: 1024)
                                    }
                                    if frames.readableBytes > 0 { try await writer.write(frames) }
                                    next = last + 1
                                }
                                while true {
                                    switch await subscriber.next() {
                                    case .chunk(let frames): try await writer.write(frames)
                                    case .closed: return
                                    }
                                }
                            } onGracefulShutdown: {
                                subscriber.close(.shutdown)
                            }
                        }
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// Runs `operation`, cancelling it when `signal` finishes (a subscriber that must stop even while
    /// a write to a stalled client is waiting).
    func untilAborted(_ signal: AsyncStream<Void>, _ operation: () async throws -> Void) async throws {
        try await withoutActuallyEscaping(operation) { operation in
            // Run by a child task this function waits for, so never after the caller's borrow ends; it
            // holds the response's writer, which is not `Sendable`, and nothing else touches it meanwhile.
            nonisolated(unsafe) let transfer = operation
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await _ in signal {}
                    return false
                }
                group.addTask {
                    try await transfer()
                    return true
                }
                let completed = try await group.next()!
                group.cancelAll()
                if !completed { throw CancellationError() }
            }
        }
    }

    /// How many exports may run at once: each holds a thread and a read transaction.
    final class ExportSlots: Sendable {
        private let running = Mutex(0)
        let capacity: Int

        init(capacity: Int) { self.capacity = capacity }

        func take() throws {
            try running.withLock { running in
                guard running < capacity else {
                    throw APIError.unavailable("\(capacity) exports are running, the server's limit; try again when one is done.")
                }
                running += 1
            }
        }

        func give() { running.withLock { $0 -= 1 } }
    }
#endif
