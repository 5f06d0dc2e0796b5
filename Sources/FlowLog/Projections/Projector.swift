import FlowDomain
import LMDB

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
    public let log: LMDBEventLog
    public var batchSize = 4_096

    public init(log: LMDBEventLog) {
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
    public func follow(_ projectors: [any Projector], pollEvery interval: Double = 0.2, shouldStop: () -> Bool) throws {
        while !shouldStop() {
            var handled = 0
            for projector in projectors { handled += try catchUp(projector) }
            if handled == 0 { usleep(UInt32(interval * 1_000_000)) }
        }
    }
}

/// Where each projector stands, for `flowlog projections status`.
public struct ProjectionStatus: Sendable {
    public let name: String
    public let checkpoint: Int
    public let lag: Int
    /// Why the projector stopped, if its last run failed.
    public let failure: String?
}

extension LMDBEventLog {
    /// Names of the databases the projections keep beside the log.
    static let projectionDatabaseNames = ["projections", "rm.state", "rm.orders", "rm.flags"]

    func projectionDatabases(create: Bool) throws -> [Database]? {
        do {
            return try environment.openDatabases(named: Self.projectionDatabaseNames, create: create)
        } catch let error as LMDBError where error.isNotFound {
            return nil
        }
    }

    public func checkpoint(of projector: String) throws -> Int {
        guard let databases = try projectionDatabases(create: false) else { return 0 }
        return try reading { txn in try checkpoint(of: projector, txn, databases) }
    }

    /// A projector's checkpoint as the transaction sees it: 0 before its first event.
    func checkpoint(of projector: String, _ txn: Transaction, _ databases: [Database]) throws -> Int {
        try txn.get(databases[0], key: Array(("checkpoint:" + projector).utf8)).map { Keys.decodeInt($0) } ?? 0
    }

    func setCheckpoint(_ position: Int, of projector: String, _ txn: Transaction, _ databases: [Database]) throws {
        try txn.put(databases[0], key: Array(("checkpoint:" + projector).utf8), value: Keys.littleEndian(UInt64(position)))
    }

    public func setCheckpoint(_ position: Int, of projector: String) throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in try setCheckpoint(position, of: projector, txn, databases) }
    }

    /// The last position whose calls a tracker's collector acknowledged before its latest rebuild:
    /// kept apart from the checkpoint, which a rebuild sets back to 0.
    public func acknowledgedPosition(of projector: String) throws -> Int {
        guard let databases = try projectionDatabases(create: false) else { return 0 }
        return try reading { txn in
            try txn.get(databases[0], key: Array(("acknowledged:" + projector).utf8)).map { Keys.decodeInt($0) } ?? 0
        }
    }

    /// Sets a tracker's checkpoint back to 0 in one transaction with its acknowledged mark, which
    /// becomes the furthest of the mark and the checkpoint (everything up to the checkpoint was
    /// acknowledged), or 0 when `resending`.
    func rewindTracker(_ projector: String, resending: Bool) throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in
            let key = Array(("acknowledged:" + projector).utf8)
            if resending {
                try txn.delete(databases[0], key: key)
            } else {
                let mark = try txn.get(databases[0], key: key).map { Keys.decodeInt($0) } ?? 0
                let acknowledged = max(mark, try checkpoint(of: projector, txn, databases))
                try txn.put(databases[0], key: key, value: Keys.littleEndian(UInt64(acknowledged)))
            }
            try setCheckpoint(0, of: projector, txn, databases)
        }
    }

    public func setProjectionStatus(_ projector: String, failure: String?) throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in
            let key = Array(("failure:" + projector).utf8)
            if let failure { try txn.put(databases[0], key: key, value: Array(failure.utf8)) } else { try txn.delete(databases[0], key: key) }
        }
    }

    public func projectionStatus(of names: [String]) throws -> [ProjectionStatus] {
        let last = try lastPosition()
        let databases = try projectionDatabases(create: false)
        return try names.map { name in
            let checkpoint = try checkpoint(of: name)
            let failure: String? = try databases.flatMap { databases in
                try reading { txn in try txn.get(databases[0], key: Array(("failure:" + name).utf8)).map { String(decoding: $0, as: UTF8.self) } }
            }
            return ProjectionStatus(name: name, checkpoint: checkpoint, lag: last - checkpoint, failure: failure)
        }
    }
}

/// Delivers a service's analytics calls for each event, at least once: the checkpoint moves only after
/// the sink confirmed delivery, so a crash in between sends those calls again, with the same message ids.
/// A rebuild, though, is no crash: it keeps the acknowledged mark, and what the collector already
/// confirmed is not sent again unless asked (`reset(resending: true)`).
public final class TrackerProjector: Projector {
    public let service: any AnalyticsService
    public let sink: any TrackerSink
    private let log: LMDBEventLog
    public var name: String { "tracker." + service.name }

    public init(service: any AnalyticsService, sink: any TrackerSink, log: LMDBEventLog) {
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
