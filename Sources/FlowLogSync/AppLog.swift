public import FlowDomain
public import FlowLog
import FlowLogBasics
public import FlowLogLMDB
public import FlowLogStore
import FlowLogSystem
public import Foundation
import Synchronization

/// What an app links: its own FlowLog log in a folder on the device, commands decided and made
/// durable there (offline or not), each stream's state as it changes, and a sync that pushes in
/// the background by `push`'s rules (`Pusher`).
///
/// Dispatching and observing never wait for the network; the sync reads the log on a thread of
/// its own while commands go on being appended (LMDB takes one writer and any number of readers).
///
/// Unchecked `Sendable`: the LMDB log is read by the sync thread beside the one writer, as LMDB allows; the rest is behind locks.
public final class AppLog: @unchecked Sendable {
    public let log: LMDBEventLog
    private let processor: CommandProcessor
    /// Held while the processor decides and appends (it is one writer's), so commands are serialised.
    private let writing = Mutex(())
    private let observers = Mutex<[String: [UUID: AsyncStream<StreamState>.Continuation]]>([:])
    private let sync = Mutex<BackgroundSync?>(nil)

    /// Opens the log in `folder`, creating it when missing.
    public init(folder: String) throws {
        log = try LMDBEventLog(path: folder, access: .readWriteCreating)
        let clock = SystemClock()
        processor = CommandProcessor(log: log, clock: clock, ids: UUIDv7Generator(clock: clock))
    }

    /// A stream's state and version.
    public struct StreamState: Sendable, Equatable {
        public let state: LogDecider.State
        public let version: Int
    }

    /// Decides `command` against its stream and appends the events, durable before this returns;
    /// observers of the stream get its new state, and the background sync is woken.
    public func dispatch(_ command: CommandEnvelope) throws -> CommandOutcome {
        let (outcome, current) = try writing.withLock { _ in
            (try processor.handle(command), try processor.state(of: command.stream))
        }
        if case .accepted(let accepted) = outcome {
            publish(StreamState(state: current.state, version: current.version), of: command.stream)
            if !accepted.duplicate { sync.withLock { $0 }?.dispatched(events: accepted.receipt.eventCount) }
        }
        return outcome
    }

    /// The stream's state now, then after every accepted command of this process, until the
    /// sequence is dropped.
    public func states(of stream: String) throws -> AsyncStream<StreamState> {
        let now = writing.withLock { _ in try? processor.state(of: stream) }
        let id = UUID()
        let (sequence, continuation) = AsyncStream<StreamState>.makeStream(bufferingPolicy: .bufferingNewest(1))
        if let now { continuation.yield(StreamState(state: now.state, version: now.version)) }
        observers.withLock { $0[stream, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { $0[stream]?[id] = nil }
        }
        return sequence
    }

    private func publish(_ state: StreamState, of stream: String) {
        let continuations = observers.withLock { $0[stream].map { Array($0.values) } ?? [] }
        for continuation in continuations { continuation.yield(state) }
    }

    /// Starts pushing in the background: after each accepted command (and every `interval` seconds),
    /// by `push`'s rules; a push that fails as a whole waits with backoff and is tried again. Give
    /// `server` a short retry policy: each request's own retries hold the push up meanwhile.
    /// Streams the server forgot are forgotten here too when `forgetGone`.
    public func startSync(_ server: SyncServer, interval: Double = 30, forgetGone: Bool = true) {
        let started = BackgroundSync(log: self, interval: interval, forgetGone: forgetGone)
        sync.withLock { $0 = started }
        started.start(Pusher(server: server))
    }

    /// The background sync's status (`SyncStatus.idle` before `startSync`).
    public var syncStatus: SyncStatus { sync.withLock { $0 }?.status ?? SyncStatus() }

    /// Stops the background sync after the push under way, if any.
    public func stopSync() {
        sync.withLock { $0 }?.stop()
        sync.withLock { $0 = nil }
    }

    /// Forgets `streams` here (the server forgot them): through the one writer.
    func forget(_ streams: [String]) throws {
        _ = try writing.withLock { _ in try processor.forget(streams: streams, reason: "forgotten on the server") }
    }
}

/// What the background sync last did: events the server does not have yet (as of the last push),
/// the last failure and the last time every stream arrived.
public struct SyncStatus: Sendable, Equatable {
    public var pending = 0
    public var lastError: String?
    public var lastSuccess: Date?
    /// Streams the server refused for good at the last push (gone, newer than it, in conflict).
    public var refused: [PushReport.Refused] = []
    public var pushes = 0
}
