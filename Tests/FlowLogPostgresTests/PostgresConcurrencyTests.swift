// Needs the `Network` trait: PostgreSQL and the HTTPS transport are built only with it.
#if Network
    import FlowDomain
    import FlowLogBasics
    @testable import FlowLogPostgres
    import FlowLogStore
    import FlowLogTesting
    import Foundation
    import Testing

    /// Shared between a test's threads, behind a lock (this module's concurrency tests use it).
    final class Shared<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func with<Result>(_ body: (inout Value) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    @Suite("PostgreSQL backend: many writers, gap-free followers")
    struct PostgresConcurrencyTests {
        /// 8 writers, each with its own log object (its own connection), append 2,000 commands over 50
        /// streams in batches while 2 followers read with `waitForEvents`: each follower sees every
        /// position exactly once, in order, never one before its predecessor; every acknowledged command
        /// is in the log with its receipt.
        @Test func eightWritersTwoFollowersEveryPositionOnceInOrder() throws {
            let url = PostgresServer.shared.url()
            _ = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            let writers = 8
            let commandsPerWriter = 2_000
            let batch = 10
            let acknowledged = Shared<[(command: String, stream: String, receipt: CommandReceipt, ids: [EventID])]>([])
            let failures = Shared<[String]>([])
            let writing = Shared(writers)
            let seen = Shared<[[Int]]>([[], []])

            var threads: [Thread] = []
            let done = DispatchGroup()
            for follower in 0..<2 {
                done.enter()
                threads.append(
                    Thread {
                        defer { done.leave() }
                        do {
                            let log = try PostgresEventLog.open(url: url, access: .readOnly)
                            var last = 0
                            var positions: [Int] = []
                            while true {
                                let finished = writing.with { $0 == 0 }
                                let head = try log.waitForEvents(after: last, timeout: 1)
                                try log.forEachEvent(from: last + 1, through: nil) { event in
                                    positions.append(event.position)
                                    last = event.position
                                    return true
                                }
                                if finished && last >= head { break }
                            }
                            seen.with { $0[follower] = positions }
                        } catch {
                            failures.with { $0.append("follower \(follower): \(error)") }
                        }
                    })
            }
            for writer in 0..<writers {
                done.enter()
                threads.append(
                    Thread {
                        defer {
                            writing.with { $0 -= 1 }
                            done.leave()
                        }
                        do {
                            let log = try PostgresEventLog.open(url: url, access: .readWrite)
                            var mine: [(String, String, CommandReceipt, [EventID])] = []
                            for first in stride(from: 0, to: commandsPerWriter, by: batch) {
                                let requests = (first..<first + batch).map { index in
                                    let events = (0..<(index % 3 == 0 ? 2 : 1)).map { _ in
                                        NewEvent(
                                            eventId: EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)),
                                            timestamp: Timestamp(microseconds: 1_798_761_600_000_000 + Int64(index)), actor: .user,
                                            event: .navigation(.modalPresented))
                                    }
                                    return AppendRequest(
                                        stream: "s\((writer * 7 + index) % 50)", expectedVersion: nil, commandId: "w\(writer)-\(index)",
                                        events: events)
                                }
                                let results = try log.append(requests)
                                for (request, result) in zip(requests, results) {
                                    guard case .appended(let receipt) = result else {
                                        failures.with { $0.append("writer \(writer): \(request.commandId!) was answered \(result)") }
                                        continue
                                    }
                                    mine.append((request.commandId!, request.stream, receipt, request.events.map(\.eventId)))
                                }
                            }
                            acknowledged.with { $0 += mine.map { (command: $0.0, stream: $0.1, receipt: $0.2, ids: $0.3) } }
                        } catch {
                            failures.with { $0.append("writer \(writer): \(error)") }
                        }
                    })
            }
            for thread in threads { thread.start() }
            done.wait()
            #expect(failures.with { $0 } == [])

            let log = try PostgresEventLog.open(url: url, access: .readOnly)
            let last = try log.lastPosition()
            let commands = acknowledged.with { $0 }
            #expect(commands.count == writers * commandsPerWriter)
            #expect(last == commands.reduce(0) { $0 + $1.receipt.eventCount })
            for (follower, positions) in seen.with({ $0 }).enumerated() {
                #expect(positions == Array(1...last), "follower \(follower) saw \(positions.count) positions, not 1…\(last) in order")
            }
            let events = try log.events()
            #expect(events.map(\.position) == Array(1...last))
            for command in commands {
                #expect(try log.receipt(stream: command.stream, commandId: command.command) == command.receipt)
                for (offset, position) in command.receipt.positions.enumerated() {
                    let event = events[position - 1]
                    #expect(event.stream == command.stream && event.eventId == command.ids[offset])
                }
            }
            var versions: [String: Int] = [:]
            for event in events {
                #expect(event.version == (versions[event.stream] ?? 0) + 1)
                versions[event.stream] = event.version
            }
            #expect(versions.count == 50)
            #expect(try log.checkIntegrity().isIntact)
        }
    }
#endif
