import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLog
@testable import FlowLogProjections

/// A collector in memory: answers each request with the next scripted reply (the last one repeats),
/// and keeps every request's body.
private final class ScriptedTransport: HTTPTransport {
    enum Answer {
        case reply(Int, [(String, String)], String)
        case down
    }
    var script: [Answer]
    private(set) var bodies: [[UInt8]] = []
    init(_ script: [Answer]) { self.script = script }

    func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
        bodies.append(body)
        let answer = script.count > 1 ? script.removeFirst() : script[0]
        switch answer {
        case .reply(let status, let headers, let text): return HTTPReply(status: status, headers: headers, body: Array(text.utf8))
        case .down: throw TransportFailure("connection refused")
        }
    }

    /// The `messageId`s (Segment) of each request, in order.
    func messageIds() throws -> [[String]] {
        try bodies.map { body in
            guard case .array(let batch)? = try JSONParser.parse(String(decoding: body, as: UTF8.self))["batch"] else { return [] }
            return batch.map { if case .string(let id)? = $0["messageId"] { id } else { "" } }
        }
    }
}

/// A sink on `transport` whose waits are recorded, not slept, on a clock that the waits advance.
private func sink(_ transport: ScriptedTransport, folder: TemporaryDirectory, deadline: Double = 3_600) -> (VendorSink, Box) {
    let clock = Box()
    let sink = VendorSink(
        endpoint: .segment(url: URL(string: "http://127.0.0.1:9/v1/batch")!, writeKey: "KEY"), transport: transport,
        policy: RetryPolicy(deadline: deadline), journal: DeliveryJournal(folder: folder.path, tracker: "segment"))
    sink.sleep = {
        clock.waits.append($0)
        clock.now += $0
    }
    sink.seconds = { clock.now }
    sink.random = { 0.5 }
    return (sink, clock)
}

private final class Box {
    var now = 0.0
    var waits: [Double] = []
}

private func messages(_ count: Int, bytes: Int = 100, clients: Int = 1) -> [TrackerMessage] {
    (1...count).map { index in
        let padding = String(repeating: "x", count: max(0, bytes - 40))
        return TrackerMessage(
            position: index, id: "m\(index)", client: "s\(index % clients)", timestampMicros: 1_798_761_600_000_000,
            bytes: Array(#"{"type":"track","messageId":"m\#(index)","p":"\#(padding)"}"#.utf8))
    }
}

private let segment = SegmentService(library: LibraryInfo(version: "test"))

@Suite("Delivery to vendors")
struct DeliveryTests {
    @Test func segmentRequestsStayWithinItsCountAndSizeLimitsAndAnOversizedMessageIsADeadLetter() throws {
        var all = messages(700, bytes: 2_000)
        all.insert(
            TrackerMessage(position: 350, id: "huge", client: "s", timestampMicros: 0, bytes: Array(repeating: UInt8(ascii: " "), count: 40_000)),
            at: 350)
        let steps = RequestPlanner.plan(all, limits: SegmentService(library: LibraryInfo(version: "t"), batchSize: 300).limits)
        var sent: [String] = []
        for step in steps {
            switch step {
            case .request(let slice):
                #expect(slice.count <= 300)
                #expect(segment.body(of: slice, sentAt: Timestamp(microseconds: 0)).count <= 500_000)
                sent += slice.map(\.id)
            case .deadLetter(let message, let reason):
                #expect(message.id == "huge")
                #expect(reason.contains("40000 bytes") && reason.contains("32768"))
            }
        }
        #expect(sent == all.map(\.id).filter { $0 != "huge" }, "every other message, in order, once")
        let bigger = RequestPlanner.plan(messages(700, bytes: 30_000), limits: segment.limits)
        for case .request(let slice) in bigger { #expect(segment.body(of: slice, sentAt: Timestamp(microseconds: 0)).count <= 500_000) }
    }

    @Test func ga4RequestsHoldOneClientAndAtMost25EventsAndKeepAnEventsMessagesTogether() {
        var all = messages(60, clients: 1)
        all += messages(3, clients: 1).map { TrackerMessage(position: 60, id: $0.id + "-b", client: "s0", timestampMicros: 0, bytes: $0.bytes) }
        all += (61...70).map { TrackerMessage(position: $0, id: "o\($0)", client: "other", timestampMicros: 0, bytes: Array("{}".utf8)) }
        let requests = RequestPlanner.plan(all, limits: GA4Service().limits).compactMap { step -> ArraySlice<TrackerMessage>? in
            if case .request(let slice) = step { slice } else { nil }
        }
        #expect(requests.allSatisfy { $0.count <= 25 && Set($0.map(\.client)).count == 1 })
        #expect(requests.flatMap { $0.map(\.id) } == all.map(\.id))
        #expect(requests.filter { $0.contains { $0.position == 60 } }.count == 1, "position 60's four messages go in one request")
    }

    @Test func aThrottledRequestWaitsAtLeastRetryAfterAndKeepsItsMessageIds() throws {
        let folder = TemporaryDirectory()
        let transport = ScriptedTransport([
            .reply(429, [("Retry-After", "7")], ""), .reply(503, [], "busy"), .down, .reply(200, [], #"{"success":true}"#),
        ])
        let (sink, clock) = sink(transport, folder: folder)
        var times = 0
        sink.now = {
            times += 1
            return Timestamp(microseconds: Int64(times) * 1_000_000)
        }
        var done: [Int] = []
        try sink.deliver(messages(3), of: segment) { done.append($0) }
        #expect(clock.waits.count == 3)
        #expect(clock.waits[0] >= 7, "Retry-After: 7 is honoured")
        #expect(clock.waits[1] < clock.waits[2], "the backoff grows")
        let ids = try transport.messageIds()
        #expect(ids.count == 4 && Set(ids).count == 1, "every retry sends the same message ids")
        let sentAts = transport.bodies.map { (try? JSONParser.parse(String(decoding: $0, as: UTF8.self)))?["sentAt"] }
        #expect(Set(sentAts.compactMap { $0.map { "\($0)" } }).count == 4, "each request has its own sentAt")
        #expect(done == [3])
        let stats = DeliveryJournal(folder: folder.path, tracker: "segment").stats()
        #expect(stats.delivered == 3 && stats.retried == 3 && stats.deadLettered == 0)
    }

    @Test func aCollectorDownPastTheDeadlineStopsTheTrackerWithoutLosingAMessage() throws {
        let folder = TemporaryDirectory()
        let transport = ScriptedTransport([.down])
        let (sink, clock) = sink(transport, folder: folder, deadline: 120)
        var done: [Int] = []
        #expect(throws: FlowLogError.self) { try sink.deliver(messages(3), of: segment) { done.append($0) } }
        #expect(done.isEmpty, "nothing is marked done")
        #expect(clock.now <= 120)
        #expect(transport.bodies.count > 3)
        #expect(DeliveryJournal(folder: folder.path, tracker: "segment").stats().lastError?.contains("connection refused") == true)
    }

    @Test(arguments: [400, 401, 403, 413])
    func refusedRequestsAreNeverRetriedButDeadLetteredAndDeliveryGoesOn(status: Int) throws {
        let folder = TemporaryDirectory()
        let transport = ScriptedTransport([.reply(status, [], #"{"error":"no"}"#), .reply(200, [], "")])
        let (sink, clock) = sink(transport, folder: folder)
        var done: [Int] = []
        try sink.deliver(
            messages(1)
                + messages(2).map { TrackerMessage(position: $0.position + 1, id: "n\($0.id)", client: "s", timestampMicros: 0, bytes: $0.bytes) },
            of: SegmentService(library: LibraryInfo(version: "t"), batchSize: 1)
        ) { done.append($0) }
        #expect(clock.waits.isEmpty, "no retry")
        #expect(done == [1, 2, 3], "delivery went on past the refused message")
        let journal = DeliveryJournal(folder: folder.path, tracker: "segment")
        let letters = try String(contentsOfFile: journal.deadLetterPath, encoding: .utf8).split(separator: "\n")
        #expect(letters.count == 1)
        let letter = try JSONParser.parse(String(letters[0]))
        #expect(letter["status"] == .integer(status) && letter["response"] == .string(#"{"error":"no"}"#))
        #expect(letter["message"]?["messageId"] == .string("m1"))
        #expect(journal.stats().deadLettered == 1 && journal.stats().delivered == 2)
    }

    @Test func aRequestRefusedAsAWholeIsSplitSoOnlyTheBadMessageIsDeadLettered() throws {
        let folder = TemporaryDirectory()
        final class RefusesM3: HTTPTransport {
            func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
                String(decoding: body, as: UTF8.self).contains(#""m3""#)
                    ? HTTPReply(status: 400, headers: [], body: []) : HTTPReply(status: 200, headers: [], body: [])
            }
        }
        let sink = VendorSink(
            endpoint: .segment(url: URL(string: "http://127.0.0.1:9/v1/batch")!, writeKey: "K"), transport: RefusesM3(),
            journal: DeliveryJournal(folder: folder.path, tracker: "segment"))
        try sink.deliver(messages(8), of: segment) { _ in }
        let journal = DeliveryJournal(folder: folder.path, tracker: "segment")
        #expect(journal.stats().delivered == 7 && journal.stats().deadLettered == 1)
        // Replayed once the collector takes it: delivered, and the dead-letter file is gone.
        let replay = VendorSink(endpoint: sink.endpoint, transport: ScriptedTransport([.reply(200, [], "")]), journal: journal)
        #expect(try journal.takeDeadLetters { try replay.deliver($0, of: segment) { _ in } } == 1)
        #expect(!FileManager.default.fileExists(atPath: journal.deadLetterPath))
        #expect(journal.stats().delivered == 8)
    }

    @Test func oneTrackerDownNeverHoldsUpAnother() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            .handle(
                (1...30).map {
                    CommandEnvelope(stream: "s", command: .cart(.addProduct(.init(productId: "p\($0)", name: nil, unitPrice: 1, quantity: 1))))
                })
        let down = ScriptedTransport([.down])
        let up = ScriptedTransport([.reply(204, [], "")])
        let ga4Sink = VendorSink(
            endpoint: .ga4(url: URL(string: "http://127.0.0.1:9/mp/collect")!, measurementId: "G-1", apiSecret: "S"), transport: up,
            journal: DeliveryJournal(folder: folder.path, tracker: "ga4"))
        let (segmentSink, _) = sink(down, folder: folder, deadline: 0.5)
        segmentSink.seconds = { MonotonicClock.seconds() }
        segmentSink.policy.firstDelay = 0.05
        segmentSink.pausesInsteadOfSleeping = true
        let trackers: [any Projector] = [
            TrackerProjector(service: segment, sink: segmentSink, log: log), TrackerProjector(service: GA4Service(), sink: ga4Sink, log: log),
        ]
        let results = ProjectionRunner(log: log).catchUpEach(trackers)
        #expect(throws: FlowLogError.self) { try results[0].get() }
        #expect(try results[1].get() == 30)
        #expect(try log.checkpoint(of: "tracker.segment") == 0 && log.checkpoint(of: "tracker.ga4") == 30)
        #expect(down.bodies.count > 1, "the Segment tracker retried meanwhile")
        #expect(up.bodies.count == 2, "GA4: 30 events of one client, in requests of at most 25")
    }

    @Test func retryAfterIsReadAsSecondsOrAsAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(HTTPReply(status: 429, headers: [("retry-after", "12")], body: []).retryAfter(now: now) == 12)
        let date = "Fri, 15 Jan 2027 08:00:30 GMT"
        let expected =
            (DateComponents(
                calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "GMT"), year: 2027, month: 1, day: 15, hour: 8, minute: 0,
                second: 30
            ).date!.timeIntervalSince(now))
        #expect(HTTPReply(status: 503, headers: [("Retry-After", date)], body: []).retryAfter(now: now) == max(0, expected))
        #expect(HTTPReply(status: 503, headers: [], body: []).retryAfter(now: now) == nil)
    }

    @Test func endpointsNeverShowTheirSecrets() {
        let ga4 = VendorEndpoint.ga4(url: URL(string: "https://www.google-analytics.com/mp/collect")!, measurementId: "G-1", apiSecret: "TOPSECRET")
        #expect(ga4.url.query?.contains("api_secret=TOPSECRET") == true)
        #expect(!ga4.description.contains("TOPSECRET"))
        let failure = DeliveryFailure(url: ga4.description, attempts: 3, lastProblem: "HTTP 503")
        #expect(!failure.description.contains("TOPSECRET"))
        let segmentEndpoint = VendorEndpoint.segment(url: URL(string: "https://api.segment.io/v1/batch")!, writeKey: "WK")
        #expect(segmentEndpoint.headers.first?.1 == "Basic " + Data("WK:".utf8).base64EncodedString())
        #expect(!segmentEndpoint.description.contains("WK"))
    }
}
