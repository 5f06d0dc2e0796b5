import FlowLogSystem
import FlowLogTesting
import Foundation
import Testing

/// `GET /events/subscribe`: every committed event exactly once and in order, whoever wrote it,
/// from `from` or after `Last-Event-ID`, filtered by stream and type; heartbeats; a slow client
/// is cut off, not buffered without bound; graceful shutdown ends the streams.
@Suite("serve: live subscriptions")
struct ServerSubscribeTests {
    private func batch(_ stream: String, _ count: Int) -> String {
        (0..<count).map { #"{"type":"cart.addProduct","stream":"\#(stream)","productId":"p\#($0 % 50)","unitPrice":100,"quantity":1}"# }
            .joined(separator: "\n") + "\n"
    }

    /// Where `ids` first differ from `expected` (a short text), or `nil`: failures name counts, not arrays.
    private func firstDifference(_ ids: [Int], _ expected: ClosedRange<Int>) -> String? {
        for (index, id) in ids.enumerated() where id != expected.lowerBound + index {
            return "index \(index): id \(id), expected \(expected.lowerBound + index)"
        }
        return ids.count == expected.count ? nil : "\(ids.count) ids, expected \(expected.count)"
    }

    @Test func everyEventArrivesOnceAndInOrderWhoeverWroteIt() throws {
        let server = try ServedLog()
        let early = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1")
        let onlyNew = try EventStreamReader(port: server.port, path: "/events/subscribe")
        let filtered = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1&stream=w2&type=cart.productAdded")
        _ = onlyNew.nextFrame()  // retry: … comes first; the subscription is in place
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
        #expect(firstDifference(early.events(total).map(\.id), 1...total) == nil)
        #expect(firstDifference(onlyNew.events(total).map(\.id), 1...total) == nil)
        #expect(firstDifference(late.events(total).map(\.id), 1...total) == nil)
        #expect(firstDifference(resumed.events(total - 600).map(\.id), 601...total) == nil)
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

    @Test func subscribersJoiningAfterUnwatchedCommitsMissNothing() async throws {
        let server = try ServedLog()
        // Nobody subscribes while these commit: the follower moves its head past them without reading them.
        for _ in 0..<3 { #expect(try server.postNDJSON("/commands", batch("q", 100)).status == 200) }
        #expect(try server.headPosition() == 300)
        try await Task.sleep(for: .seconds(1))  // the follower polls the log every 50 ms
        let fromStart = try EventStreamReader(port: server.port, path: "/events/subscribe?from=1")
        let onlyNew = try EventStreamReader(port: server.port, path: "/events/subscribe")
        _ = onlyNew.nextFrame()  // retry: … first; it starts after the follower's head, 300
        _ = fromStart.nextFrame()
        for _ in 0..<2 { #expect(try server.postNDJSON("/commands", batch("q", 100)).status == 200) }
        #expect(firstDifference(fromStart.events(500).map(\.id), 1...500) == nil)
        #expect(firstDifference(onlyNew.events(200).map(\.id), 301...500) == nil)
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
        let total = 30_000
        let server = try ServedLog(arguments: ["--subscriber-buffer", "65536"])
        let slow = try RawHTTP.connect(port: server.port, timeout: 10, receiveBuffer: 4096)
        defer { close(slow) }
        // Live from the start (no `from`): it is pushed frames as they commit, which it cannot take.
        try RawHTTP.send(slow, RawHTTP.requestBytes(method: "GET", path: "/events/subscribe", headers: [:], body: []))
        let admitted = Date().addingTimeInterval(20)
        while try !server.get("/metrics").text.contains("flowlog_subscribers 1"), Date() < admitted { usleep(20_000) }
        // About 9 MB of frames: more than the kernel's socket buffers hold (up to 4 MiB on the
        // server's side), so the rest queues in the server, past the 64 KiB it allows.
        for index in 0..<60 { _ = try server.postNDJSON("/commands", batch("s\(index)", 500)) }
        // The server did not wait for it: all 30,000 events are in, and it still answers.
        #expect(try server.headPosition() == total)
        // The body without its chunk framing (a chunk may end inside a frame); the last frame may be cut short.
        let body = try RawHTTP.parse(RawHTTP.readAll(slow)).text
        let frames = body.components(separatedBy: "\n\n").dropLast()
        let ids = frames.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
        #expect(ids.count < total, "the slow subscriber was disconnected before it had everything")
        let firstGap = ids.indices.first { ids[$0] != $0 + 1 }
        #expect(firstGap == nil, "what it got is a prefix, in order; first difference at index \(firstGap ?? -1) of \(ids.count)")
        // It reconnects after the last id it saw and gets the rest from the log.
        let last = ids.last ?? 0
        try #require(firstGap == nil && last < total)
        let resumed = try EventStreamReader(port: server.port, path: "/events/subscribe", headers: ["Last-Event-ID": String(last)])
        #expect(firstDifference(resumed.events(total - last).map(\.id), (last + 1)...total) == nil)
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
