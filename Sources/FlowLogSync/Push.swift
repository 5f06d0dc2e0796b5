import Deciding
import FlowLogBasics
import FlowLogProjections
public import FlowLogStore
import Foundation

/// `flowlog push`: every local stream's events the server lacks, sent in version order.
///
/// For each stream it asks the server where the stream stands (`GET /streams/{s}/tip`), checks the
/// server's last event is the device's own at that version, and sends what follows in batches. A
/// push stopped anywhere (killed, the network gone) starts again by asking: nothing is kept on
/// the device about what was sent, so nothing can be out of date. A batch whose answer was lost is
/// sent again and acknowledged as duplicates, so every event reaches the server exactly once.
public struct Pusher {
    public let server: SyncServer
    /// Events per request, and the bytes a request may grow to before it is sent anyway. Each
    /// request is a durable commit on the server, which is most of what a push waits for
    /// (docs/performance.md, "Sync").
    public var batchEvents = 5_000
    public var batchBytes = 4 << 20
    /// Called after each request with the events sent so far, for a progress line.
    public var progress: (_ sent: Int) -> Void = { _ in }

    public init(server: SyncServer) { self.server = server }

    /// Pushes `streams` (every stream of the log but its own system streams when nil): a thousand
    /// streams at a time, their tips asked in one request and their events sent many streams to a
    /// request (`POST /ingest`); to a server without those routes, one stream at a time. The log's
    /// streams are walked a round at a time, never listed whole: a device may hold many sessions.
    public func push(_ log: any EventLog, streams selected: [String]? = nil) throws -> PushReport {
        var report = PushReport()
        var batched = true
        if let selected {
            for start in stride(from: 0, to: selected.count, by: Self.streamsPerRound) {
                try pushRound(Array(selected[start..<min(start + Self.streamsPerRound, selected.count)]), from: log, batched: &batched, into: &report)
            }
            return report
        }
        var round: [String] = []
        try log.forEachStream(from: nil) { stream, _ in
            guard !SystemStreams.isReserved(stream) else { return true }
            round.append(stream)
            if round.count == Self.streamsPerRound {
                try pushRound(round, from: log, batched: &batched, into: &report)
                round.removeAll(keepingCapacity: true)
            }
            return true
        }
        if !round.isEmpty { try pushRound(round, from: log, batched: &batched, into: &report) }
        return report
    }

    /// One round of streams: their tips in one request, then their events (`batched` turns false
    /// for good once the server answers that it has no batch routes).
    private func pushRound(_ streams: [String], from log: any EventLog, batched: inout Bool, into report: inout PushReport) throws {
        let locals = try streams.map { stream in
            let version = try log.version(of: stream)
            guard version > 0 else {
                throw SyncFailure.usage(
                    "There is no stream \(stream) in \(log.location); list its streams with `\(ProgramName.current) streams --db \(log.location)`")
            }
            return (stream: stream, version: version)
        }
        if batched, let tips = try server.tips(of: streams) {
            try pushBatched(locals, tips: tips, from: log, into: &report)
        } else {
            batched = false
            for (stream, local) in locals { try pushSingly(stream, localVersion: local, from: log, into: &report) }
        }
    }

    /// Streams whose tips one request asks for.
    static let streamsPerRound = 1_000

    /// What to do with a stream, given where the server has it.
    enum Plan {
        case send(after: Int)
        case upToDate
        case refused(PushReport.Refused)
    }

    /// The plan for `stream` (`local` events here) against the server's `tip` (nil: forgotten there).
    func plan(_ stream: String, local: Int, tip: (version: Int, eventId: EventID?)?, log: any EventLog) throws -> Plan {
        guard let tip else {
            return .refused(
                .init(stream: stream, reason: .gone, message: "forgotten on the server (an erasure request); nothing of it is stored again"))
        }
        if tip.version > local {
            return .refused(
                .init(
                    stream: stream, reason: .conflict,
                    message: "the server holds version \(tip.version), this log only \(local): another writer wrote the stream there"))
        }
        if tip.version > 0, try log.event(inStream: stream, version: tip.version)?.eventId != tip.eventId {
            return .refused(
                .init(
                    stream: stream, reason: .conflict,
                    message: "the server's version \(tip.version) is another event than this log's: two writers recorded the same session id"))
        }
        return tip.version < local ? .send(after: tip.version) : .upToDate
    }

    /// One stream by the per-stream routes: its tip, then its events in batches.
    func pushSingly(_ stream: String, localVersion local: Int, from log: any EventLog, into report: inout PushReport) throws {
        let after: Int
        switch try plan(stream, local: local, tip: try server.tip(of: stream), log: log) {
        case .refused(let refused):
            report.refused.append(refused)
            return
        case .upToDate:
            report.upToDate += 1
            return
        case .send(let version): after = version
        }
        var batch = JSONWriter(capacity: 64 << 10)
        var count = 0
        var refusal: PushReport.Refused?
        func flush() throws {
            guard count > 0 else { return }
            let reply = try server.send("POST", "streams/\(stream)/events", query: [], body: batch.bytes, contentType: "application/x-ndjson")
            if let refused = Self.refusal(of: reply, stream: stream) {
                refusal = refused
            } else {
                try server.expectSuccess(reply, asking: "to store stream \(stream)'s events")
                guard case .object(let members)? = reply.json else {
                    throw SyncFailure.notFlowLog("\(server.base) answered an ingest with something other than FlowLog's answer")
                }
                try Self.count(members, into: &report)
                progress(report.appended + report.duplicates)
            }
            batch = JSONWriter(capacity: 64 << 10)
            count = 0
        }
        try log.forEachEvent(inStream: stream, throughPosition: nil) { event in
            guard event.version > after else { return true }
            FlowJSON.writeEvent(event, into: &batch)
            batch.newline()
            count += 1
            if count >= batchEvents || batch.bytes.count >= batchBytes { try flush() }
            return refusal == nil
        }
        if refusal == nil { try flush() }
        if let refusal { report.refused.append(refusal) } else { report.delivered += 1 }
    }

    /// Adds an ingest answer's `appended` and `duplicates` to the report.
    static func count(_ members: [(String, JSONValue)], into report: inout PushReport) throws {
        guard case .integer(let appended)? = members.first(where: { $0.0 == "appended" })?.1,
            case .integer(let duplicates)? = members.first(where: { $0.0 == "duplicates" })?.1
        else {
            throw SyncFailure.notFlowLog("an ingest answer without its counts")
        }
        report.appended += appended
        report.duplicates += duplicates
    }

    /// A stream the server refuses for good: gone, newer than it knows, in conflict, or a log to upgrade.
    static func refusal(of reply: HTTPReply, stream: String) -> PushReport.Refused? {
        refusal(status: reply.status, code: SyncServer.errorCode(of: reply), message: SyncServer.message(of: reply), stream: stream)
    }

    static func refusal(status: Int, code: String?, message: String, stream: String) -> PushReport.Refused? {
        switch (status, code) {
        case (410, _): .init(stream: stream, reason: .gone, message: message)
        case (422, "unknownEventKind"?), (409, "logUpgradeRequired"?): .init(stream: stream, reason: .newerThanServer, message: message)
        case (409, _): .init(stream: stream, reason: .conflict, message: message)
        case (400, "malformedEvent"?): .init(stream: stream, reason: .malformed, message: message)
        default: nil
        }
    }
}

/// What a push did: events appended and acknowledged as duplicates, streams delivered, already up
/// to date, and refused (each with its reason).
public struct PushReport: Equatable, Sendable {
    public struct Refused: Equatable, Sendable {
        public enum Reason: String, Sendable {
            /// Forgotten on the server: `--forget-gone` forgets it here too.
            case gone
            /// An event of a kind or version the server does not know, or its log cannot hold yet:
            /// kept here, to send again once the server is upgraded.
            case newerThanServer = "newer than the server"
            /// The server holds other events at the stream's versions.
            case conflict
            /// The server cannot read an event of this log.
            case malformed
        }
        public let stream: String
        public let reason: Reason
        public let message: String
    }

    public var appended = 0
    public var duplicates = 0
    public var delivered = 0
    public var upToDate = 0
    public var refused: [Refused] = []
}
