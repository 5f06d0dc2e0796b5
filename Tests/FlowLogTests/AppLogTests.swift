import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogMemory
import FlowLogProjections
import FlowLogStore
import FlowLogSync
import FlowLogTesting
import Foundation
import Testing

/// A server's sync routes over a log in memory, without HTTP: what `IngestRoutes` does with a
/// request, reduced to the calls `push` makes. `down` answers nothing, as a phone offline.
final class IngestLoopback: SyncTransport, @unchecked Sendable {
    let log = InMemoryEventLog()
    lazy var server = CommandProcessor(log: log)
    let lock = NSLock()
    var down = false

    func exchange(method: String, url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
        lock.lock()
        defer { lock.unlock() }
        if down { throw TransportFailure("connection refused") }
        let parts = url.path.split(separator: "/")
        guard parts.count == 3, parts[0] == "streams" else { return HTTPReply(status: 404, headers: [], body: []) }
        let stream = String(parts[1])
        if method == "GET", parts[2] == "tip" {
            let tip = try server.ingestTip(of: stream)
            let id = tip.eventId.map { #","eventId":"\#($0)""# } ?? ""
            return HTTPReply(status: 200, headers: [], body: Array(#"{"stream":"\#(stream)","version":\#(tip.version)\#(id)}"#.utf8))
        }
        var events: [RecordedEvent] = []
        try body.withUnsafeBytes { bytes in
            try NDJSONLines.forEach(in: bytes) { line, _ in if !line.isEmpty { events.append(try RecordedEventJSON.decode(line)) } }
        }
        let stored = try server.ingest(events, stream: stream)
        return HTTPReply(
            status: 200, headers: [], body: Array(#"{"appended":\#(stored.appended?.eventCount ?? 0),"duplicates":\#(stored.duplicates)}"#.utf8))
    }
}

@Suite("An app's log: dispatch, observe, sync in the background")
struct AppLogTests {
    static func add(_ product: String, stream: String = "ios-1") -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: product, name: "Mug", unitPrice: 350, quantity: 1))))
    }

    @Test func aDispatchedCommandIsDurableAndItsStreamsObserversSeeTheNewState() async throws {
        let folder = TemporaryDirectory()
        let app = try AppLog(folder: folder.child("app"))
        let states = try app.states(of: "ios-1")
        var iterator = states.makeAsyncIterator()
        #expect(await iterator.next()?.version == 0)
        guard case .accepted = try app.dispatch(Self.add("p1")) else {
            Issue.record("rejected")
            return
        }
        #expect(await iterator.next()?.version == 1)
        _ = try app.dispatch(Self.add("p2"))
        let second = await iterator.next()
        #expect(second?.version == 2 && second?.state.cart.lines.count == 2)
        #expect(try app.log.version(of: "ios-1") == 2, "on disk before dispatch returned")
    }

    @Test func theSyncDeliversWhatWasDispatchedOfflineOnceTheServerAnswers() async throws {
        let folder = TemporaryDirectory()
        let app = try AppLog(folder: folder.child("app"))
        let transport = IngestLoopback()
        transport.down = true
        // Requests give up soon: the background sync waits and tries again on its own.
        let retry = RetryPolicy(deadline: 0.2, firstDelay: 0.05, maximumDelay: 0.1, timeout: 5)
        app.startSync(try SyncServer(base: "http://sync.test", token: nil, transport: transport, retry: retry), interval: 0.2)
        defer { app.stopSync() }
        for index in 0..<30 { _ = try app.dispatch(Self.add("p\(index % 5)", stream: "ios-\(index % 3)")) }
        try await waitFor { app.syncStatus.lastError != nil }
        #expect(app.syncStatus.pending == 30, "\(app.syncStatus)")
        transport.down = false
        try await waitFor { app.syncStatus.pending == 0 && app.syncStatus.lastSuccess != nil }
        let stored = try transport.log.events()
        #expect(stored.count == 30 && Set(stored.map(\.eventId)).count == 30, "every event once")
        #expect(Set(stored.map(\.eventId)) == Set(try app.log.events().map(\.eventId)))
    }

    private func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(25)) }
        #expect(condition(), "timed out")
    }
}
