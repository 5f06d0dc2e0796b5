import FlowLogSystem
import FlowLogTesting
import Foundation
import Testing

/// Safe by default, where the binary or real sockets are the point: loopback unless a token file
/// is given, a token on a live event stream, deadlines for slow clients, a cap on subscribers.
@Suite("serve: safety")
struct ServerSafetyTests {
    @Test func refusesToListenOffLoopbackWithoutATokenFile() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let open = try FlowLogProcess.run(["serve", "--listen", "0.0.0.0:0"] + db)
        #expect(open.status == 64)
        #expect(open.stderr.contains("only with --token-file"))
        let readable = try FlowLogProcess.run(["serve", "--listen", "0.0.0.0:0", "--token-file", try writeTokenFile(in: folder, mode: 0o644)] + db)
        #expect(readable.status == 64)
        #expect(readable.stderr.contains("chmod 600"))
        for listen in ["8080", "127.0.0.1:99999", ":80", "[::1"] {
            let bad = try FlowLogProcess.run(["serve", "--listen", listen] + db)
            #expect(bad.status == 64, "\(listen)")
        }
        let weak = folder.child("weak")
        try "short read\n".write(toFile: weak, atomically: true, encoding: .utf8)
        chmod(weak, 0o600)
        #expect(try FlowLogProcess.run(["serve", "--token-file", weak] + db).stderr.contains("shorter than 16"))
        // Nothing was created by a refused start.
        #expect(!FileManager.default.fileExists(atPath: folder.child("log")))
    }

    /// The rest of tokens and scopes, and CORS, are asked in process (FlowLogServerTests'
    /// ServerSafetyTests); an event stream that stays open is read here, on a socket.
    @Test func aReadersTokenMayComeAsAccessTokenToTheEventStream() throws {
        let folder = TemporaryDirectory()
        let server = try ServedLog(arguments: ["--token-file", try writeTokenFile(in: folder)], prepare: FlowLogProcess.inspectorLog)
        let stream = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1&access_token=reader-token-0123456789abcdef")
        #expect(stream.events(2).map(\.id) == [1, 2])
        #expect(stream.status == 200)
        // The token never reaches the access log.
        #expect(!server.stderr.contains("reader-token"))
    }

    @Test func slowClientsGet408AndAppendNothing() throws {
        let server = try ServedLog(arguments: ["--request-timeout", "1"])
        // A head that never ends (slowloris).
        let head = try RawHTTP.connect(port: server.port)
        defer { close(head) }
        try RawHTTP.send(head, Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
        let started = Date()
        for _ in 0..<4 {
            usleep(300_000)
            try? RawHTTP.send(head, Array("a".utf8))
        }
        let answer = try RawHTTP.parse(RawHTTP.readAll(head))
        #expect(answer.status == 408)
        #expect(answer.errorCode == "requestTimeout")
        #expect(Date().timeIntervalSince(started) < 5)
        // A body that trickles in.
        let body = try RawHTTP.connect(port: server.port)
        defer { close(body) }
        let command = #"{"type":"app.launched","stream":"slow","hasOnboarded":false}"#
        try RawHTTP.send(
            body,
            Array(
                "POST /commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(command.utf8.count)\r\n\r\n".utf8)
                + Array(command.utf8.prefix(10)))
        let slow = try RawHTTP.parse(RawHTTP.readAll(body))
        #expect(slow.status == 408)
        #expect(try server.headPosition() == 0)
        // The server still answers everyone else.
        #expect(try server.post("/commands", json: command).status == 200)
        // An export dropped on the inspector may take four times as long (a 64 MiB upload).
        let file = try Array(Data(contentsOf: FlowLogProcess.fixtures.appendingPathComponent("bugs/empty-checkout.ndjson")))
        let upload = try RawHTTP.connect(port: server.port)
        defer { close(upload) }
        let request = RawHTTP.requestBytes(method: "POST", path: "/sessions", headers: ["Content-Type": "application/x-ndjson"], body: file)
        try RawHTTP.send(upload, Array(request.dropLast(file.count / 2)))
        usleep(1_500_000)
        try RawHTTP.send(upload, Array(request.suffix(file.count / 2)))
        #expect(try RawHTTP.parse(RawHTTP.readAll(upload)).status == 201)
        // One connection, several requests: the deadline is per request, not per connection.
        let before = try server.headPosition()
        let kept = try RawHTTP.connect(port: server.port)
        defer { close(kept) }
        let first = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        try RawHTTP.send(kept, first)
        usleep(700_000)
        try RawHTTP.send(kept, first)
        usleep(700_000)
        try RawHTTP.send(
            kept, RawHTTP.requestBytes(method: "POST", path: "/commands", headers: ["Content-Type": "application/json"], body: Array(command.utf8)))
        let answers = String(decoding: RawHTTP.readAll(kept), as: UTF8.self)
        #expect(answers.components(separatedBy: "HTTP/1.1 200 OK").count == 4, "\(answers)")
        #expect(try server.headPosition() > before)
        // A body cut short by the deadline is the client's 408, not a failure of the server.
        #expect(!server.stderr.contains("unexpected failure"), "\(server.stderr)")
        #expect(server.stderr.contains(#""path":"/commands","route":"/commands","status":"408""#))
    }

    @Test func theNumberOfSubscribersIsCapped() throws {
        let server = try ServedLog(arguments: ["--max-subscribers", "1"])
        let first = try EventStreamReader(port: server.port, path: "/events/subscribe")
        #expect(first.nextFrame() != nil)
        #expect(first.status == 200)
        let second = try server.get("/events/subscribe")
        #expect(second.status == 503 && second.errorCode == "unavailable")
        #expect(second.text.contains("1 subscribers"))
    }
}
