import FlowLogBasics
public import FlowLogStore
import FlowLogSystem
import Tracing

/// A side effect driven by the log: it handles recorded events in position order and remembers the
/// last position it handled (its checkpoint), so it can be stopped, restarted or rebuilt at any time.
public protocol Projector: AnyObject {
    var name: String { get }
    /// The last global position handled; 0 before the first.
    func checkpoint() throws -> Int
    /// Handles events that directly follow the checkpoint, and moves the checkpoint past them.
    func project(_ events: [RecordedEvent]) throws
    /// Forgets what it projected, so that the next catch-up starts again from position 1.
    func reset() throws
}

/// Catches projectors up with the log, batch by batch, and follows it as it grows.
public struct ProjectionRunner {
    public let log: any EventLog & CheckpointStore
    public var batchSize = 4_096
    /// Asked before each batch: false once this runner may no longer run `projector` (its lease
    /// expired and another runner may hold it), which stops the catch-up before the batch is
    /// delivered or written (`FlowLogError.busy`, the lease lost).
    public var holdsLease: (_ projector: String) -> Bool = { _ in true }
    /// Asked after each batch: true ends the catch-up there (the rest is for the next one), so that
    /// a runner sharing partitions with others hands one over between two batches, not after a
    /// backlog of many.
    public var endsCatchUpEarly: () -> Bool = { false }

    public init(log: any EventLog & CheckpointStore) {
        self.log = log
    }

    /// Projects every event after the projector's checkpoint (through position `through`, when
    /// given); returns how many it handled. A failure is recorded as the projector's status (and
    /// thrown); the checkpoint stays where it was, so nothing is ever skipped.
    @discardableResult
    public func catchUp(_ projector: any Projector, through end: Int? = nil) throws -> Int {
        var handled = 0
        let tracer = InstrumentationSystem.activeTracer
        do {
            var from = try projector.checkpoint() + 1
            while true {
                let limit = end.map { min(batchSize, $0 - from + 1) } ?? batchSize
                guard limit > 0 else { break }
                let events = try log.events(from: from, limit: limit)
                guard let last = events.last else { break }
                guard holdsLease(projector.name) else {
                    throw FlowLogError.busy(ProjectorBusy(projector: projector.name, pid: nil, lost: true))
                }
                if let tracer {
                    try Self.traced(projector, events, tracer) { try projector.project(events) }
                } else {
                    try projector.project(events)
                }
                handled += events.count
                from = last.position + 1
                if endsCatchUpEarly() { break }
            }
            try log.setProjectionStatus(projector.name, failure: nil)
        } catch FlowLogError.busy(let busy) where busy.lost {
            // The projector's status is its new runner's to write now.
            throw FlowLogError.busy(busy)
        } catch {
            try? log.setProjectionStatus(projector.name, failure: "\(error)")
            throw error
        }
        return handled
    }

    /// A batch's span (`flowlog.projector.batch`: the projector, its events and positions), the
    /// parent of what the projector does with them (a tracker's requests). It links to the trace
    /// context kept with each of its events (log schema 5), one link per distinct context and
    /// `maximumLinks` at most: so the trace of the request that wrote an event shows, seconds later
    /// and from another process, its delivery.
    static let maximumLinks = 64

    private static func traced(_ projector: any Projector, _ events: [RecordedEvent], _ tracer: any Tracer, _ body: () throws -> Void) throws {
        let span = tracer.startSpan("flowlog.projector.batch", context: ServiceContext.current ?? .topLevel, ofKind: .internal)
        defer { span.end() }
        if span.isRecording {
            span.attributes["flowlog.projector"] = projector.name
            span.attributes["flowlog.projector.events"] = events.count
            span.attributes["flowlog.projector.first_position"] = events.first?.position ?? 0
            span.attributes["flowlog.projector.last_position"] = events.last?.position ?? 0
            var linked: Set<TraceContext> = []
            for event in events {
                guard let trace = event.traceContext, linked.count < maximumLinks, linked.insert(trace).inserted,
                    let context = ServiceContext.extracted(traceparent: trace.traceparent)
                else { continue }
                span.addLink(SpanLink(context: context, attributes: ["flowlog.position": .int64(Int64(event.position))]))
            }
        }
        do {
            try ServiceContext.withValue(span.context) { try body() }
        } catch {
            // A pause is the tracker waiting for its collector, not a failure of the batch.
            if !(error is DeliveryPaused) { span.recordError(error) }
            throw error
        }
    }

    /// Catches up, then keeps following new appends until `shouldStop` says so. A projector that
    /// fails, or whose collector is down, waits and tries again, while the others go on.
    ///
    /// Between catch-ups it waits on the log when the log can wake it (`LogFollowing`: PostgreSQL's
    /// LISTEN/NOTIFY, LMDB's own check of its last position), for at most `interval` seconds, so an
    /// idle runner costs nothing and a new event is projected at once.
    public func follow(_ projectors: [any Projector], pollEvery interval: Double = 0.2, retryFailedAfter: Double = 30, shouldStop: () -> Bool) throws
    {
        try follow({ projectors }, pollEvery: interval, retryFailedAfter: retryFailedAfter, shouldStop: shouldStop)
    }

    /// `follow`, over the projectors `projectors` gives at each round: a runner sharing partitions
    /// with others runs those it holds, which change as runners come and go. A projector's pause
    /// (its collector's retry) is kept by name from round to round.
    public func follow(
        _ projectors: () -> [any Projector], pollEvery interval: Double = 0.2, retryFailedAfter: Double = 30, shouldStop: () -> Bool
    ) throws {
        let following = log.capabilities.following
        var notBefore: [String: Double] = [:]
        while !shouldStop() {
            let projectors = projectors()
            var handled = 0
            for projector in projectors where notBefore[projector.name, default: 0] <= MonotonicClock.seconds() {
                do {
                    handled += try catchUp(projector)
                } catch let pause as DeliveryPaused {
                    notBefore[projector.name] = MonotonicClock.seconds() + pause.seconds
                } catch FlowLogError.busy(let busy) where busy.lost {
                    // Another runner has the projector now: nothing to retry.
                    throw FlowLogError.busy(busy)
                } catch {
                    notBefore[projector.name] = MonotonicClock.seconds() + retryFailedAfter
                }
            }
            guard handled == 0 else { continue }
            // From where the slowest projector that is not pausing stands, so an event that came
            // after its catch-up wakes it at once.
            let now = MonotonicClock.seconds()
            let active = projectors.filter { notBefore[$0.name, default: 0] <= now }
            if let following, !active.isEmpty {
                let handledThrough = try active.map { try $0.checkpoint() }.min()!
                _ = try following.waitForEvents(after: handledThrough, timeout: interval)
            } else {
                usleep(UInt32(interval * 1_000_000))
            }
        }
    }

    /// Catches every projector up, each on its own: while one waits out its collector's retry
    /// pause (`DeliveryPaused`) the others are served, so one collector down never holds up
    /// another. Returns each projector's outcome, in order, once each caught up or failed for good.
    public func catchUpEach(_ projectors: [any Projector], shouldStop: () -> Bool = { false }) -> [Result<Int, any Error>] {
        var results = [Result<Int, any Error>?](repeating: nil, count: projectors.count)
        var notBefore = [Double](repeating: 0, count: projectors.count)
        var handled = [Int](repeating: 0, count: projectors.count)
        while results.contains(where: { $0 == nil }), !shouldStop() {
            for (index, projector) in projectors.enumerated() where results[index] == nil && notBefore[index] <= MonotonicClock.seconds() {
                let before = (try? projector.checkpoint()) ?? 0
                do {
                    handled[index] += try catchUp(projector)
                    results[index] = .success(handled[index])
                } catch let pause as DeliveryPaused {
                    handled[index] += max(0, ((try? projector.checkpoint()) ?? before) - before)
                    notBefore[index] = MonotonicClock.seconds() + pause.seconds
                } catch {
                    results[index] = .failure(error)
                }
            }
            let waiting = projectors.indices.filter { results[$0] == nil }.map { notBefore[$0] }
            if let next = waiting.min() {
                let pause = next - MonotonicClock.seconds()
                if pause > 0 { usleep(UInt32(min(pause, 1) * 1_000_000)) }
            }
        }
        return results.map { $0 ?? .failure(FlowLogError.input("stopped before it caught up")) }
    }
}

/// A tracker whose collector asked it to wait (429, 5xx, no answer): thrown instead of sleeping when
/// its sink is run cooperatively, so the runner serves the other projectors meanwhile. Its checkpoint
/// stands before the request, which is tried again after `seconds`.
public struct DeliveryPaused: Error, CustomStringConvertible {
    public let seconds: Double
    public let problem: String

    public init(seconds: Double, problem: String) { (self.seconds, self.problem) = (seconds, problem) }

    public var description: String { "waiting \(Int(seconds.rounded(.up))) s to retry (\(problem))" }
}
