import Foundation

/// A log that can append a batch on the condition that it does exactly what its caller predicted,
/// and write nothing otherwise: what `BackgroundAppender` needs to answer before the write. The
/// appender reads its `lastPosition()` holding its own lock, so that read must never wait for the
/// appender (a wrapper whose reads settle the appender's writes passes the log it wraps).
///
/// An embedded log's append rules run inside its write transaction, so its answers (positions,
/// conflicts) are known only there. But a `CommandProcessor` already knows what they will be when
/// nobody else writes: it checked the command ids, and it asks for the versions it decided against.
public protocol PredictedAppending: EventLog {
    /// `append(requests)` in one durable transaction, committed only if the log's last position
    /// before it is `head` and the answers are `results`; otherwise nothing is written and
    /// `AppendDiverged` is thrown. Also `AppendDiverged` when the write would need a larger map:
    /// growing it is left to a synchronous append, with no other transaction of the process open.
    func append(_ requests: [AppendRequest], asPredicted results: [AppendResult], after head: Int) throws
}

/// A predicted append found the log elsewhere than predicted (another process wrote, a command
/// id was stored meanwhile, a cached state was behind) or was built on one that did: nothing of it
/// was written, and its commands are to be decided again (`GroupCommitWriter` does).
public struct AppendDiverged: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "the log was not where the append predicted it; nothing was written" }
}

/// Deferred commits for a log that commits synchronously (LMDB): `appendDeferringCommit` answers at
/// once with the results the rules would give if nothing else moved the log (every request
/// appended, at the positions after the previous one), and the write itself — the append rules,
/// encoding, the B-tree puts and the synchronous commit — runs on a thread of its own, while the
/// caller decides the next batch. On 2 cores `send` spent half its main thread in the write.
///
/// The write checks the prediction inside its transaction and commits only if it held. The writes
/// form a chain, one at a time in the order they were handed over: once one fails (diverged or
/// not), every later one fails with the same error until a synchronous `append` (which waits for
/// the chain to drain) starts a new one, so no event is ever written after — or ahead of — one
/// that was not, and positions keep the order of the batches.
public final class BackgroundAppender: DeferredCommitAppending, @unchecked Sendable {
    private let log: any PredictedAppending
    private let condition = NSCondition()
    /// The last position once every write handed over so far is committed; `nil` when no write
    /// is under way or the chain broke, so the next prediction reads it from the log.
    private var chainEnd: Int?
    /// The write handed over last (the next one runs after it).
    private var last: Write?
    /// Why the chain broke: every write handed over since fails with it.
    private var broken: (any Error)?
    /// The writes handed over and not yet done, oldest first, with the streams they name.
    private var pending: [(write: Write, requests: [AppendRequest], streams: Set<String>?)] = []

    public init(log: any PredictedAppending) {
        self.log = log
    }

    public var defersCommit: Bool { true }

    public func appendDeferringCommit(_ requests: [AppendRequest]) throws -> (results: [AppendResult], commit: any PendingCommit) {
        condition.lock()
        defer { condition.unlock() }
        if let broken {
            // Decided on top of a write that failed: it must not be written either.
            let write = Write(previous: nil)
            write.finish(broken)
            return (Self.predictedResults(requests, after: 0).results, write)
        }
        let head: Int
        if let chainEnd {
            head = chainEnd
        } else {
            head = try log.lastPosition()
        }
        let (results, predictable) = Self.predictedResults(requests, after: head)
        guard predictable else {
            // Requests whose answers cannot be told beforehand: written here, after the chain, and
            // not at all if a write of the chain (which they may have been decided on) failed.
            if let last {
                condition.unlock()
                last.waitUntilDone()
                condition.lock()
            }
            if let broken {
                let write = Write(previous: nil)
                write.finish(broken)
                return (results, write)
            }
            drainLocked()
            return (try log.append(requests), SettledCommit())
        }
        let write = Write(previous: last)
        last = write
        pending.append((write, requests, nil))
        chainEnd = head + requests.reduce(0) { $0 + $1.events.count }
        Thread { [self] in
            write.waitForPrevious()
            condition.lock()
            let failure = broken
            condition.unlock()
            if let failure {
                fail(write, failure)
                return
            }
            do {
                try log.append(requests, asPredicted: results, after: head)
                done(write)
            } catch {
                fail(write, error)
            }
        }.start()
        return (results, write)
    }

    /// Waits until every write handed over is done, and starts a new chain: for a synchronous
    /// append (`append` on the log), which must come after them and may grow the map.
    public func drain() {
        condition.lock()
        drainLocked()
        condition.unlock()
    }

    /// Waits until every write handed over is done, leaving the chain as it is: for a read of
    /// the whole log.
    public func waitForWrites() {
        condition.lock()
        let last = self.last
        condition.unlock()
        last?.waitUntilDone()
    }

    private func drainLocked() {
        if let last {
            condition.unlock()
            last.waitUntilDone()
            condition.lock()
        }
        last = nil
        chainEnd = nil
        broken = nil
    }

    /// Waits for the writes under way that name any of `streams`: a read of those streams sees
    /// them (a state loaded while its events were still being written would be behind them, and a
    /// command rejected against it would never reach the log to be caught).
    public func settle(streams: some Sequence<String>) {
        condition.lock()
        defer { condition.unlock() }
        guard !pending.isEmpty else { return }
        // Writes finish in order: waiting for the latest that names one of them covers the rest.
        var latest = -1
        for stream in streams {
            for index in pending.indices.reversed() where index > latest {
                if pending[index].streams == nil { pending[index].streams = Self.streams(of: pending[index].requests) }
                if pending[index].streams!.contains(stream) {
                    latest = index
                    break
                }
            }
            if latest == pending.count - 1 { break }
        }
        guard latest >= 0 else { return }
        let write = pending[latest].write
        condition.unlock()
        write.waitUntilDone()
        condition.lock()
    }

    /// The streams `requests` name. By index, each name once per run of it: a lazy map copied
    /// every request (its strings and arrays retained and released), and a session's requests
    /// come in a row.
    private static func streams(of requests: [AppendRequest]) -> Set<String> {
        var streams = Set<String>()
        // Room for a commit's streams at once: grown from nothing, the set was rehashed a dozen times.
        streams.reserveCapacity(min(requests.count, SendSession.defaultStreamsPerCommit))
        var previous: String?
        for index in requests.indices where requests[index].stream != previous {
            previous = requests[index].stream
            streams.insert(requests[index].stream)
        }
        return streams
    }

    private func done(_ write: Write) {
        condition.lock()
        pending.removeAll { $0.write === write }
        condition.unlock()
        write.finish(nil)
    }

    private func fail(_ write: Write, _ error: any Error) {
        condition.lock()
        if broken == nil { broken = error }
        chainEnd = nil
        pending.removeAll { $0.write === write }
        condition.unlock()
        write.finish(error)
    }

    /// What `AppendRules` answers when the log is where the processor believes: every request
    /// appended, in order, from `head + 1`. Not `predictable` when a request has no expected
    /// version (its version after cannot be told). A request that does not follow its stream's
    /// request before it is predicted appended all the same: the write finds the conflict and
    /// diverges, which costs a second decision in a case the processor never makes, instead of a
    /// lookup by stream for every request.
    static func predictedResults(_ requests: [AppendRequest], after head: Int) -> (results: [AppendResult], predictable: Bool) {
        var position = head
        var predictable = true
        var results: [AppendResult] = []
        results.reserveCapacity(requests.count)
        // By index, reading three members: a `for` over the requests copied each one, retaining
        // its strings and arrays.
        for index in requests.indices {
            let expected = requests[index].expectedVersion
            if expected == nil { predictable = false }
            let count = requests[index].events.count
            results.append(
                .appended(
                    CommandReceipt(
                        firstPosition: position + 1, eventCount: count, version: (expected ?? 0) + count,
                        commandFingerprint: requests[index].commandFingerprint)))
            position += count
        }
        return (results, predictable)
    }

    /// One write on its way: `wait` returns once it is committed, or throws why not.
    final class Write: PendingCommit, @unchecked Sendable {
        /// The write before, until this one's thread has waited for it (then dropped, so that
        /// finished writes do not pile up in a chain).
        private var previous: Write?
        private let condition = NSCondition()
        private var outcome: Result<Void, any Error>?

        init(previous: Write?) {
            self.previous = previous
        }

        func waitForPrevious() {
            previous?.waitUntilDone()
            previous = nil
        }

        func finish(_ error: (any Error)?) {
            condition.lock()
            outcome = error.map { .failure($0) } ?? .success(())
            condition.broadcast()
            condition.unlock()
        }

        func waitUntilDone() {
            condition.lock()
            while outcome == nil { condition.wait() }
            condition.unlock()
        }

        func wait() throws {
            condition.lock()
            while outcome == nil { condition.wait() }
            let outcome = outcome!
            condition.unlock()
            try outcome.get()
        }
    }
}
