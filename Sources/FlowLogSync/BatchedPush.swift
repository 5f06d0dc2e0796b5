import FlowLogBasics
import FlowLogProjections
import FlowLogStore
import Foundation

/// Many short sessions, few requests: the tips of a thousand streams in one request, then their
/// events in requests of `batchEvents` (`POST /ingest`), each one transaction and one durable
/// commit on the server whatever the number of streams in it. Each stream is answered on its own;
/// a stream refused is not sent further, the others go on.
extension Pusher {
    func pushBatched(
        _ locals: [(stream: String, version: Int)], tips: [String: (version: Int, eventId: EventID?)?],
        from log: any EventLog, into report: inout PushReport
    ) throws {
        var batch = JSONWriter(capacity: 64 << 10)
        var count = 0
        var streamsInBatch: [String] = []
        var refused: [String: PushReport.Refused] = [:]
        /// Streams sent whole by the per-stream route after a batch the server could not take.
        var sentAlone: Set<String> = []
        func flush() throws {
            guard count > 0 else { return }
            let reply = try server.send("POST", "ingest", query: [], body: batch.bytes, contentType: "application/x-ndjson")
            if reply.status == 400 || reply.status == 422 {
                // A line this server cannot take (a kind newer than it knows): each stream of the
                // batch alone, by the per-stream route, which refuses only the stream that holds it.
                for stream in streamsInBatch where refused[stream] == nil && !sentAlone.contains(stream) {
                    sentAlone.insert(stream)
                    var alone = PushReport()
                    try pushSingly(stream, localVersion: try log.version(of: stream), from: log, into: &alone)
                    report.appended += alone.appended
                    report.duplicates += alone.duplicates
                    if let refusal = alone.refused.first { refused[stream] = refusal }
                }
            } else {
                try server.expectSuccess(reply, asking: "to store a batch of events")
                guard case .object(let members)? = reply.json, case .array(let answers)? = members.first(where: { $0.0 == "streams" })?.1 else {
                    throw SyncFailure.notFlowLog("\(server.base) answered POST /ingest with something other than FlowLog's answer")
                }
                for case .object(let answer) in answers {
                    guard case .string(let stream)? = answer.first(where: { $0.0 == "stream" })?.1 else { continue }
                    if case .object(let error)? = answer.first(where: { $0.0 == "error" })?.1 {
                        guard case .integer(let status)? = answer.first(where: { $0.0 == "status" })?.1,
                            case .string(let code)? = error.first(where: { $0.0 == "code" })?.1,
                            case .string(let message)? = error.first(where: { $0.0 == "message" })?.1,
                            let refusal = Self.refusal(status: status, code: code, message: message, stream: stream)
                        else {
                            throw SyncFailure.notFlowLog("\(server.base) refused stream \(stream) in a way push does not know")
                        }
                        refused[stream] = refusal
                    } else {
                        try Self.count(answer, into: &report)
                    }
                }
            }
            progress(report.appended + report.duplicates)
            batch = JSONWriter(capacity: 64 << 10)
            count = 0
            streamsInBatch = []
        }
        var sent: [String] = []
        for (stream, local) in locals {
            let after: Int
            switch try plan(stream, local: local, tip: tips[stream] ?? nil, log: log) {
            case .refused(let refusal):
                report.refused.append(refusal)
                continue
            case .upToDate:
                report.upToDate += 1
                continue
            case .send(let version): after = version
            }
            sent.append(stream)
            streamsInBatch.append(stream)
            try log.forEachEvent(inStream: stream, throughPosition: nil) { event in
                guard event.version > after else { return true }
                FlowJSON.writeEvent(event, into: &batch)
                batch.newline()
                count += 1
                if count >= batchEvents || batch.bytes.count >= batchBytes {
                    try flush()
                    streamsInBatch = [stream]
                }
                return refused[stream] == nil && !sentAlone.contains(stream)
            }
        }
        try flush()
        for stream in sent {
            if let refusal = refused[stream] { report.refused.append(refusal) } else { report.delivered += 1 }
        }
    }
}

extension SyncServer {
    /// Where each of `streams` stands on the server (`POST /ingest/tips`; nil inside: forgotten
    /// there), or nil from a server without the route (it answers 404 or 405).
    func tips(of streams: [String]) throws(SyncFailure) -> [String: (version: Int, eventId: EventID?)?]? {
        var body = JSONWriter(capacity: 32 * streams.count + 16)
        body.beginObject()
        body.key("streams")
        body.beginArray()
        for stream in streams { body.string(stream) }
        body.endArray()
        body.endObject()
        let reply = try send("POST", "ingest/tips", query: [], body: body.bytes, contentType: "application/json")
        if reply.status == 404 || reply.status == 405 { return nil }
        try expectSuccess(reply, asking: "where \(streams.count) streams stand")
        guard case .object(let members)? = reply.json, case .array(let entries)? = members.first(where: { $0.0 == "tips" })?.1 else {
            throw SyncFailure.notFlowLog("\(redacted(base)) answered POST /ingest/tips with something other than FlowLog's tips")
        }
        var tips: [String: (version: Int, eventId: EventID?)?] = [:]
        for case .object(let entry) in entries {
            guard case .string(let stream)? = entry.first(where: { $0.0 == "stream" })?.1 else { continue }
            if case .bool(true)? = entry.first(where: { $0.0 == "gone" })?.1 {
                tips[stream] = .some(nil)
            } else if let tip = Self.tip(entry) {
                tips[stream] = tip
            }
        }
        guard streams.allSatisfy({ tips[$0] != nil }) else {
            throw SyncFailure.notFlowLog("\(redacted(base)) left streams out of its tips")
        }
        return tips
    }
}
