import FlowLogSystem
import FlowLogTesting
import Foundation
import Testing

/// `flowlog serve --db postgres://…`: the server never names a backend, so a PostgreSQL log
/// answers as an LMDB one does, and shares its log with `send` processes: subscribers see their
/// events too, and the server's cached states never reject a command against a stream another
/// process moved.
@Suite("serve: on PostgreSQL", .serialized)
struct ServerPostgresTests {
    private let postgres = PostgresServer.shared

    @Test func aPostgreSQLLogIsServedAsAnLMDBLogIs() throws {
        let input = try String(contentsOf: FlowLogProcess.fixtures.appendingPathComponent("commands/cart-rules.ndjson"), encoding: .utf8)
        let lmdb = try ServedLog()
        let served = try ServedLog(db: postgres.url())
        let answers = try [lmdb, served].map { try $0.postNDJSON("/commands", input) }
        #expect(answers[1].status == 200)
        #expect(answers[1].text == answers[0].text)
        // Event ids and times are each server's own; what is served is what the CLI reads from the same log.
        let url = served.db
        #expect(try served.get("/events").text == FlowLogProcess.run(["export", "--db", url]).stdout)
        #expect(
            try served.get("/events", headers: ["Accept": "text/csv"]).text == FlowLogProcess.run(["export", "--format", "csv", "--db", url]).stdout)
        #expect(try served.get("/events").lines.count == lmdb.get("/events").lines.count)
        #expect(try served.get("/streams/cart?at=3").text == lmdb.get("/streams/cart?at=3").text)
        #expect(
            try served.get("/streams/cart?at=3").text
                == FlowLogProcess.run(["state", "--stream", "cart", "--at", "3", "--format", "json", "--db", url]).stdout)
        #expect(served.stop(SIGTERM) == 0)
    }

    @Test func anotherWritersEventsReachSubscribersAndItsMovesAreNeverDecidedAgainstAStaleState() throws {
        let url = postgres.url()
        let server = try ServedLog(db: url)
        let add = { (price: Int) in #"{"type":"cart.addProduct","stream":"shared","productId":"p1","unitPrice":\#(price),"quantity":1}"# }
        #expect(try server.post("/commands", json: add(1250)).status == 200)
        let reader = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1")
        // Another process removes p1: the server's cached state of `shared` is now stale.
        let removed = try FlowLogProcess.run(
            ["send", "--db", url], stdin: #"{"type":"cart.removeProduct","stream":"shared","productId":"p1"}"# + "\n")
        #expect(removed.status == 0, "\(removed.stderr)")
        // p1 at another price is a new line now, not a price mismatch against the cached line.
        let readded = try server.post("/commands", json: add(1300))
        #expect(readded.status == 200, "\(readded.text)")
        #expect(readded.json["positions"] == .array([.integer(3)]))
        let seen = reader.events(3)
        #expect(seen.map(\.id) == [1, 2, 3])
        #expect(seen.map { $0.data.contains("cart.productRemoved") } == [false, true, false])
        #expect(server.stop(SIGTERM) == 0)
        #expect(try FlowLogProcess.run(["verify", "--db", url]).status == 0)
    }
}
