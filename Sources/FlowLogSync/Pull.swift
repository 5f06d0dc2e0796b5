public import FlowLog
import FlowLogBasics
import FlowLogStore
import Foundation

/// `flowlog pull`: one session from a server into a local log, with its ids, versions and times,
/// so that `state --at`, `replay`, `bisect` and the inspector run on it offline.
///
/// The stream's events come as `export` writes them (`GET /events?stream=`) and are appended as
/// recorded events (`CommandProcessor.ingest`), never decided again. Pulling again appends only
/// what is new; a local stream that holds another event at one of the server's versions is
/// refused, never merged.
public struct Puller {
    public let server: SyncServer

    public init(server: SyncServer) { self.server = server }

    /// What a pull of one stream did.
    public struct Pulled: Equatable, Sendable {
        public var stream: String
        public var appended: Int
        public var version: Int
    }

    /// The streams of the server's events that carry `correlationId` (one conversation across
    /// sessions), in the order they first come: each is then pulled whole.
    public func streams(carrying correlationId: String) throws -> [String] {
        var seen = Set<String>()
        return try events(matching: "correlationId", correlationId, asking: "for the events of correlation id \(correlationId)")
            .map(\.stream).filter { seen.insert($0).inserted }
    }

    public func pull(_ stream: String, into processor: CommandProcessor) throws -> Pulled {
        let events = try events(matching: "stream", stream, asking: "for stream \(stream)'s events")
        guard !events.isEmpty else {
            throw SyncFailure.usage("The server holds no stream \(stream) (or it was forgotten there); check the id")
        }
        do {
            let stored = try processor.ingest(events, stream: stream)
            return Pulled(stream: stream, appended: stored.appended?.eventCount ?? 0, version: stored.version)
        } catch let refusal as CommandProcessor.IngestRefusal {
            throw SyncFailure.disagreement("This log's stream \(stream) is not the server's: \(refusal). Pull it into another log (--db)")
        }
    }

    /// The server's events selected by one query parameter of `GET /events`, read as `import` reads
    /// an export's lines; a line that cannot be read is the server's fault, named by its number.
    private func events(matching name: String, _ value: String, asking what: String) throws -> [RecordedEvent] {
        let reply = try server.send("GET", "events", query: [URLQueryItem(name: name, value: value)], body: [])
        try server.expectSuccess(reply, asking: what)
        var events: [RecordedEvent] = []
        var problem: String?
        reply.body.withUnsafeBytes { bytes in
            NDJSONLines.forEach(in: bytes) { line, number in
                guard problem == nil, !line.isEmpty else { return }
                do {
                    events.append(try RecordedEventJSON.decode(line))
                } catch {
                    problem = "line \(number) of the server's answer cannot be read: \(error)"
                }
            }
        }
        if let problem { throw SyncFailure.notFlowLog("\(server.base): \(problem)") }
        return events
    }
}
