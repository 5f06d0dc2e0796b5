import FlowLogBasics
public import FlowLogStore
import Foundation
import Synchronization

/// Deferred commits for a log that commits synchronously (LMDB): `appendDeferringCommit` answers at
/// once with the results the rules would give if nothing else moved the log (every request
/// appended, at the positions after the previous one), and the write itself — the append rules,
/// encoding, the B-tree puts and the synchronous commit — runs on another thread (one serial
/// queue, `writes`), while the caller decides the next batch. On 2 cores `send` spent half its main
/// thread in the write.
///
/// The write checks the prediction inside its transaction and commits only if it held. The writes
/// form a chain, one at a time in the order they were handed over: once one fails (diverged or
/// not), every later one fails with the same error until a synchronous `append` (which waits for
/// the chain to drain) starts a new one, so no event is ever written after — or ahead of — one
/// that was not, and positions keep the order of the batches.
///
/// Unchecked `Sendable`: the log is shared with the write threads, as LMDB allows (one writer at a time, readers beside it).
public final class BackgroundAppender: DeferredCommitAppending, @unchecked Sendable {
    private let log: any PredictedAppending

    /// The chain of writes handed over, guarded together.
    private struct Chain {
        /// The last position once every write handed over so far is committed; `nil` when no write
        /// is under way or the chain broke, so the next prediction reads it from the log.
        var end: Int?
        /// The write handed over last (the next one runs after it).
        var last: Write?
        /// Why the chain broke: every write handed over since fails with it.
        var broken: (any Error)?
        /// The writes handed over and not yet done, oldest first, with the streams they name.
        var pending: [(write: Write, requests: [AppendRequest], streams: Set<String>?)] = []

        /// A new chain, once every write of this one is done.
        mutating func restart() {
            last = nil
            end = nil
            broken = nil
        }
    }

    /// Held only to read or change the chain (and, for a synchronous append, while it writes, so that
    /// nothing is handed over meanwhile): never while waiting for a write.
    private let chain = Mutex(Chain())
    /// Where the writes run, one after another. One queue rather than a new thread a write: each
    /// new thread takes a fresh stack and may take a malloc arena of its own, which a `send` of many
    /// commits paid for in memory and time (decisions.md, "`send` into an LMDB log decides a batch
    /// while the one before is written").
    private let writes = DispatchQueue(label: "flowlog.appender")

    public init(log: any PredictedAppending) {
        self.log = log
    }

    public var defersCommit: Bool { true }

    /// What `appendDeferringCommit` found under the lock.
    private enum Handover {
        /// The chain is broken: the requests fail with its error.
        case failed([AppendResult], any Error)
        /// Handed over as `write`, to be written after `head`.
        case handedOver([AppendResult], Write, head: Int)
        /// Answers that cannot be told beforehand: written synchronously once `last` is done.
        case unpredictable([AppendResult], last: Write?)
    }

    public func appendDeferringCommit(_ requests: [AppendRequest]) throws -> (results: [AppendResult], commit: any PendingCommit) {
        let handover = try chain.withLock { chain -> Handover in
            if let broken = chain.broken {
                // Decided on top of a write that failed: it must not be written either.
                return .failed(Self.predictedResults(requests, after: 0).results, broken)
            }
            let head = try chain.end ?? log.lastPosition()
            let (results, predictable) = Self.predictedResults(requests, after: head)
            guard predictable else { return .unpredictable(results, last: chain.last) }
            let write = Write(previous: chain.last)
            chain.last = write
            chain.pending.append((write, requests, nil))
            chain.end = head + requests.reduce(0) { $0 + $1.events.count }
            return .handedOver(results, write, head: head)
        }
        switch handover {
        case .failed(let results, let broken):
            return (results, Self.failedWrite(broken))
        case .handedOver(let results, let write, let head):
            writes.async { [self] in
                write.waitForPrevious()
                if let failure = chain.withLock({ $0.broken }) {
                    fail(write, failure)
                    return
                }
                do {
                    let ((), bytes) = try AppendedBytes.counting { try log.append(requests, asPredicted: results, after: head) }
                    write.bytesWritten = bytes
                    done(write)
                } catch {
                    fail(write, error)
                }
            }
            return (results, write)
        case .unpredictable(let results, let last):
            // Written here, after the chain, and not at all if a write of the chain (which they may
            // have been decided on) failed.
            last?.waitUntilDone()
            if let broken = chain.withLock({ $0.broken }) { return (results, Self.failedWrite(broken)) }
            // As `drain`: a write handed over meanwhile is waited for too; then the chain starts
            // anew and the requests are written, holding the lock so that nothing is handed over first.
            waitForWrites()
            return try chain.withLock { chain in
                chain.restart()
                return (try log.append(requests), SettledCommit())
            }
        }
    }

    /// A write that fails with `error` without writing anything.
    private static func failedWrite(_ error: any Error) -> Write {
        let write = Write(previous: nil)
        write.finish(error)
        return write
    }

    /// Waits until every write handed over is done, and starts a new chain: for a synchronous
    /// append (`append` on the log), which must come after them and may grow the map.
    public func drain() {
        waitForWrites()
        chain.withLock { $0.restart() }
    }

    /// Waits until every write handed over is done, leaving the chain as it is: for a read of
    /// the whole log.
    public func waitForWrites() {
        chain.withLock({ $0.last })?.waitUntilDone()
    }

    /// Waits for the writes under way that name any of `streams`: a read of those streams sees
    /// them (a state loaded while its events were still being written would be behind them, and a
    /// command rejected against it would never reach the log to be caught).
    public func settle(streams: some Sequence<String>) {
        let write = chain.withLock { chain -> Write? in
            guard !chain.pending.isEmpty else { return nil }
            // Writes finish in order: waiting for the latest that names one of them covers the rest.
            var latest = -1
            for stream in streams {
                for index in chain.pending.indices.reversed() where index > latest {
                    if chain.pending[index].streams == nil { chain.pending[index].streams = Self.streams(of: chain.pending[index].requests) }
                    if chain.pending[index].streams!.contains(stream) {
                        latest = index
                        break
                    }
                }
                if latest == chain.pending.count - 1 { break }
            }
            return latest >= 0 ? chain.pending[latest].write : nil
        }
        write?.waitUntilDone()
    }

    /// The streams `requests` name. By index, each name once per run of it: a lazy map copied
    /// every request (its strings and arrays retained and released), and a session's requests
    /// come in a row.
    private static func streams(of requests: [AppendRequest]) -> Set<String> {
        var streams = Set<String>()
        // Room for a commit's streams at once: grown from nothing, the set was rehashed a dozen times.
        streams.reserveCapacity(min(requests.count, AppendRules.streamsPerCommit))
        var previous: String?
        for index in requests.indices where requests[index].stream != previous {
            previous = requests[index].stream
            streams.insert(requests[index].stream)
        }
        return streams
    }

    private func done(_ write: Write) {
        chain.withLock { $0.pending.removeAll { $0.write === write } }
        write.finish(nil)
    }

    private func fail(_ write: Write, _ error: any Error) {
        chain.withLock { chain in
            if chain.broken == nil { chain.broken = error }
            chain.end = nil
            chain.pending.removeAll { $0.write === write }
        }
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
    final class Write: PendingCommit, Sendable {
        private struct Progress {
            /// The write before, until this one's thread has waited for it (then dropped, so that
            /// finished writes do not pile up in a chain).
            var previous: Write?
            var outcome: Result<Void, any Error>?
            var bytes = 0
        }

        /// What the write's thread and its waiters share; they wait for `outcome`.
        private let progress: ConditionBox<Progress>

        /// Set by the write's thread before `finish`, read by its waiters after `wait`.
        var bytesWritten: Int {
            get { progress.withLock { $0.bytes } }
            set { progress.withLock { $0.bytes = newValue } }
        }

        init(previous: Write?) {
            progress = ConditionBox(Progress(previous: previous))
        }

        func waitForPrevious() {
            progress.withLock({ $0.previous })?.waitUntilDone()
            progress.withLock { $0.previous = nil }
        }

        func finish(_ error: (any Error)?) {
            progress.withLock { progress in
                progress.outcome = error.map { .failure($0) } ?? .success(())
                self.progress.broadcast()
            }
        }

        func waitUntilDone() {
            progress.withLock(waitingUntil: { $0.outcome != nil }) { _ in }
        }

        func wait() throws {
            try progress.withLock(waitingUntil: { $0.outcome != nil }) { $0.outcome! }.get()
        }
    }
}
