import FlowDomain

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

    public init(log: any EventLog & CheckpointStore) {
        self.log = log
    }

    /// Projects every event after the projector's checkpoint; returns how many it handled. A failure
    /// is recorded as the projector's status (and thrown); the checkpoint stays where it was, so
    /// nothing is ever skipped.
    @discardableResult
    public func catchUp(_ projector: any Projector) throws -> Int {
        var handled = 0
        do {
            var from = try projector.checkpoint() + 1
            while true {
                let events = try log.events(from: from, limit: batchSize)
                guard let last = events.last else { break }
                try projector.project(events)
                handled += events.count
                from = last.position + 1
            }
            try log.setProjectionStatus(projector.name, failure: nil)
        } catch {
            try? log.setProjectionStatus(projector.name, failure: "\(error)")
            throw error
        }
        return handled
    }

    /// Catches up, then keeps following new appends until `shouldStop` says so.
    ///
    /// Between catch-ups it waits on the log when the log can wake it (`LogFollowing`: PostgreSQL's
    /// LISTEN/NOTIFY, LMDB's own check of its last position), for at most `interval` seconds, so an
    /// idle runner costs nothing and a new event is projected at once.
    public func follow(_ projectors: [any Projector], pollEvery interval: Double = 0.2, shouldStop: () -> Bool) throws {
        let following = log as? any LogFollowing
        while !shouldStop() {
            var handled = 0
            for projector in projectors { handled += try catchUp(projector) }
            guard handled == 0 else { continue }
            if let following {
                // From where the slowest projector stands, so an event that came after its catch-up wakes it at once.
                let handledThrough = try projectors.map { try $0.checkpoint() }.min() ?? log.lastPosition()
                _ = try following.waitForEvents(after: handledThrough, timeout: interval)
            } else {
                usleep(UInt32(interval * 1_000_000))
            }
        }
    }
}

/// Where each projector stands, for `flowlog projections status`.
public struct ProjectionStatus: Sendable {
    public init(name: String, checkpoint: Int, lag: Int, failure: String?) {
        self.name = name
        self.checkpoint = checkpoint
        self.lag = lag
        self.failure = failure
    }

    public let name: String
    public let checkpoint: Int
    public let lag: Int
    /// Why the projector stopped, if its last run failed.
    public let failure: String?
}

/// Delivers a service's analytics calls for each event, at least once: the checkpoint moves only after
/// the sink confirmed delivery, so a crash in between sends those calls again, with the same message ids.
/// A rebuild, though, is no crash: it keeps the acknowledged mark, and what the collector already
/// confirmed is not sent again unless asked (`reset(resending: true)`).
public final class TrackerProjector: Projector {
    public let service: any AnalyticsService
    public let sink: any TrackerSink
    private let log: any CheckpointStore
    public var name: String { "tracker." + service.name }

    public init(service: any AnalyticsService, sink: any TrackerSink, log: any CheckpointStore) {
        self.service = service
        self.sink = sink
        self.log = log
    }

    public func checkpoint() throws -> Int { try log.checkpoint(of: name) }

    /// Calls of events at or below the acknowledged mark are not sent again after a rebuild.
    public func project(_ events: [RecordedEvent]) throws {
        let acknowledged = try log.acknowledgedPosition(of: name)
        var calls: [[UInt8]] = []
        var json = JSONWriter()
        for record in events where record.position > acknowledged {
            json.reset()
            if service.writeCall(for: record, into: &json) { calls.append(json.bytes) }
        }
        try sink.deliver(calls)
        if let last = events.last { try log.setCheckpoint(last.position, of: name) }
    }

    /// Starts again from position 1 without sending the collector what it acknowledged already.
    public func reset() throws { try reset(resending: false) }

    /// With `resending`, the acknowledged mark is forgotten too, and every call is sent again.
    public func reset(resending: Bool) throws { try log.rewindTracker(name, resending: resending) }
}

#if canImport(Glibc)
import Glibc
#endif

/// Another process runs this projector now.
public struct ProjectorBusy: Equatable, Sendable, CustomStringConvertible {
    public let projector: String
    /// The holder, when its pid could be read (a holder that has only just locked may not have written it yet).
    public let pid: Int32?

    public init(projector: String, pid: Int32?) {
        self.projector = projector
        self.pid = pid
    }

    public var description: String {
        "projector \(projector) is being run by \(pid.map { "process \($0)" } ?? "another process"); it delivers the new events itself. Wait for it to finish, or stop it, then run this again."
    }
}
