import FlowLog
import FlowLogTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `GET /events/subscribe`: every committed event exactly once and in order, whoever wrote it,
/// from `from` or after `Last-Event-ID`, filtered by stream and type; heartbeats; a slow client
/// is cut off, not buffered without bound; graceful shutdown ends the streams.
@Suite("serve: live subscriptions")
struct ServerSubscribeTests {
    private func batch(_ stream: String, _ count: Int) -> String {
        (0..<count).map { #"{"type":"cart.addProduct","stream":"\#(stream)","productId":"p\#($0 % 50)","unitPrice":100,"quantity":1}"# }
            .joined(separator: "\n") + "\n"
    }

    @Test func everyEventArrivesOnceAndInOrderWhoeverWroteIt() throws {
        let server = try ServedLog()
        let early = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1")
        let onlyNew = try EventStreamReader(port: server.port, path: "/events/subscribe")
        let filtered = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1&stream=w2&type=cart.productAdded")
        _ = onlyNew.nextFrame()   // retry: … comes first; the subscription is in place
        // Four HTTP writers and one other process, at once: 4 × 10 × 20 + 200 events.
        let group = DispatchGroup()
        for writer in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<10 { _ = try? server.postNDJSON("/commands", batch("w\(writer)", 20)) }
            }
        }
        let other = try FlowLogProcess.run(["send", "--db", server.db], stdin: batch("cli", 200))
        #expect(other.status == 0)
        group.wait()
        let total = 1000
        #expect(try server.headPosition() == total)
        let late = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1")
        let resumed = try EventStreamReader(port: server.port, path: "/events/subscribe?from=3", headers: ["Last-Event-ID": "600"])
        #expect(early.events(total).map(\.id) == Array(1...total))
        #expect(onlyNew.events(total).map(\.id) == Array(1...total))
        #expect(late.events(total).map(\.id) == Array(1...total))
        #expect(resumed.events(total - 600).map(\.id) == Array(601...total))
        let mine = filtered.events(200)
        #expect(mine.count == 200)
        #expect(mine.allSatisfy { $0.data.contains(#""stream":"w2""#) })
        #expect(mine.map(\.id) == mine.map(\.id).sorted())
        // Each data line is the event's envelope, as `export` writes it.
        let exported = try FlowLogProcess.run(["export", "--from-position", "1", "--to-position", "3", "--db", server.db]).stdoutLines
        let again = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1")
        #expect(again.events(3).map(\.data) == exported)
        #expect(try server.get("/events/subscribe?from=0").errorCode == "invalidParameter")
        #expect(try server.get("/events/subscribe", headers: ["Last-Event-ID": "x"]).errorCode == "invalidParameter")
        #expect(try server.get("/events/subscribe?type=nope").errorCode == "invalidParameter")
    }

    @Test func heartbeatsKeepAQuietStreamAlive() throws {
        let server = try ServedLog(arguments: ["--heartbeat", "0.3"])
        let reader = try EventStreamReader(port: server.port, path: "/events/subscribe")
        var comments: [String] = []
        for _ in 0..<3 {
            guard let frame = reader.nextFrame() else { break }
            if let comment = frame.comment { comments.append(comment) }
        }
        #expect(comments.contains(" heartbeat"), "\(comments)")
        #expect(reader.status == 200)
    }

    @Test func aSubscriberThatFallsBehindIsCutOffAndResumesFromTheLog() throws {
        let server = try ServedLog(arguments: ["--subscriber-buffer", "65536"])
        let slow = try RawHTTP.connect(port: server.port, timeout: 10)
        defer { close(slow) }
        var small: Int32 = 4096
        setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        try RawHTTP.send(slow, RawHTTP.requestBytes(method: "GET", path: "/events/subscribe", headers: [:], body: []))
        usleep(300_000)
        for index in 0..<20 { _ = try server.postNDJSON("/commands", batch("s\(index)", 500)) }
        // The server did not wait for it: all 10,000 events are in, and it still answers.
        #expect(try server.headPosition() == 10_000)
        let bytes = RawHTTP.readAll(slow)
        let text = String(decoding: bytes, as: UTF8.self)
        let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
        #expect(ids.count < 10_000, "the slow subscriber was disconnected before it had everything")
        #expect(ids == Array(ids.indices.map { $0 + 1 }), "what it got is a prefix, in order")
        // It reconnects after the last id it saw and gets the rest from the log.
        let last = ids.last ?? 0
        let resumed = try EventStreamReader(port: server.port, path: "/events/subscribe", headers: ["Last-Event-ID": String(last)])
        #expect(resumed.events(10_000 - last).map(\.id) == Array((last + 1)...10_000))
        #expect(try server.get("/metrics").text.contains("flowlog_subscribers 1"))
    }

    @Test func shutdownEndsTheStreamsAndTheServerExitsCleanly() throws {
        let server = try ServedLog()
        let reader = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1")
        _ = reader.nextFrame()
        let started = Date()
        #expect(server.stop(SIGTERM) == 0)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(reader.nextFrame() == nil)
        #expect(server.stderr.contains(#""message":"stopped""#))
    }
}
