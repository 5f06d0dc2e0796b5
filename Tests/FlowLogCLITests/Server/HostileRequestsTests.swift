import FlowLogBasics
import FlowLogSystem
import FlowLogTesting
import Foundation
import Testing

/// Issue 40, item 4: the server outlives its clients. The real `flowlog serve` (with a token file,
/// so commands need the write scope and everything else the read scope) gets more than a thousand
/// hostile requests over real sockets, made from a seed (`HostileCatalogue`), then a normal one.
///
/// Every hostile request must get a 4xx with the API's error JSON, with these exceptions, each
/// because HTTP itself leaves nothing else to do:
/// - an NDJSON batch is answered 200 with one answer a line (docs/server.md), every line refused;
/// - a body cut short by a client that shut its side, a chunk size or `Content-Length` the HTTP
///   parser refuses, and heads or targets past the parser's limits may get a 4xx or have the
///   connection closed with nothing written: the request never reached a route;
/// - a value at the edge of what is lawful (a page past the end of a stream, a scratch session
///   holding position 2^63-1, and the reads of every session a crafted export opened) may get any
///   answer but a 5xx.
/// Slow bodies trickle on clients of their own while the rest is sent, and get the 408 of the
/// server's deadline (`--request-timeout 2`). Afterwards the process is the same one, still
/// running; the log's export is byte for byte what it was (no hostile request appended anything);
/// and a normal command is answered 200 and appended.
@Suite("serve: hostile requests")
struct HostileRequestsTests {
    static let seed: UInt64 = 0x40_4057_11E5

    @Test func theServerOutlivesAThousandHostileRequests() throws {
        let folder = TemporaryDirectory()
        let server = try ServedLog(
            arguments: ["--token-file", try writeTokenFile(in: folder), "--request-timeout", "2"],
            prepare: FlowLogProcess.inspectorLog)
        let pid = server.process.processIdentifier
        let read = ["Authorization": "Bearer \(HostileRequest.readToken)"]
        guard case .array(let streams)? = try server.get("/streams", headers: read).json["streams"],
            case .string(let stream)? = streams.first?["stream"]
        else {
            Issue.record("the served log lists no stream")
            return
        }
        let exportBefore = try server.get("/events", headers: read)
        #expect(exportBefore.status == 200 && !exportBefore.body.isEmpty)

        // A lawful session, whose routes get the hostile reads too.
        let fixture = try String(contentsOf: FlowLogProcess.fixtures.appendingPathComponent("bugs/empty-checkout.ndjson"), encoding: .utf8)
        let opened = try server.postNDJSON("/sessions", fixture, headers: read)
        guard case .string(let session)? = opened.json["session"] else {
            Issue.record("no session: \(opened.status) \(opened.text)")
            return
        }

        var catalogue = HostileCatalogue(seed: Self.seed, stream: stream)
        let slow = catalogue.slowBodies()
        // Numbers in commands and exports last: they reach the codecs, whose traps would end the
        // run before the other kinds had told anything.
        var requests = catalogue.deepNesting() + catalogue.invalidUTF8() + catalogue.truncatedBodies()
        requests += catalogue.oversizedBodies() + catalogue.wrongContentTypes() + catalogue.hugeHeaders()
        requests += catalogue.queryNumbers(session: session, sessionStream: "session-1207")
        requests += catalogue.pathSegments(session: session, sessionStream: "session-1207")
        requests += catalogue.hugeNumbers() + catalogue.craftedExports()

        // The slow clients trickle while everyone else is served.
        let slowOutcomes = OutcomeBox(count: slow.count)
        let group = DispatchGroup()
        for (index, request) in slow.enumerated() {
            DispatchQueue.global().async(group: group) {
                slowOutcomes.set(index, HostileExchange.send(request, port: server.port))
            }
        }

        var failures: [String] = []
        var counts: [HostileRequest.Kind: Int] = [:]
        var died: String?
        func judge(_ request: HostileRequest, _ outcome: HostileRequest.Outcome) {
            counts[request.kind, default: 0] += 1
            if let wrong = request.judge(outcome) { failures.append("[\(request.kind)] \(request.label): \(wrong)") }
        }
        for request in requests where died == nil {
            let outcome = HostileExchange.send(request, port: server.port)
            judge(request, outcome)
            guard Self.isAlive(server, after: outcome) else {
                died = request.label
                break
            }
            // A session a crafted export opened: its reads, at and past its edges.
            if request.kind == .craftedExport, case .answered(201, _, let body) = outcome,
                case .string(let id)? = (try? JSONParser.parse(String(decoding: body, as: UTF8.self)))?["session"]
            {
                for read in HostileCatalogue.sessionReads(id) where died == nil {
                    let answer = HostileExchange.send(read, port: server.port)
                    judge(read, answer)
                    if !Self.isAlive(server, after: answer) { died = read.label }
                }
            }
        }
        group.wait()
        for (request, outcome) in zip(slow, slowOutcomes.values) {
            counts[request.kind, default: 0] += 1
            if case .answered(408, "requestTimeout", _) = outcome ?? .closed { continue }
            failures.append("[slowBody] \(request.label): \(outcome.map { "\($0)" } ?? "none")")
        }

        let total = counts.values.reduce(0, +)
        print(
            "hostile requests (seed \(Self.seed)): \(total); "
                + HostileRequest.Kind.allCases.map { "\($0): \(counts[$0] ?? 0)" }.joined(separator: ", "))
        #expect(died == nil, "flowlog serve died after \(died ?? ""): \(server.stderr.suffix(2000))")
        #expect(total >= 1000)
        #expect(
            failures.isEmpty,
            "\(failures.count) hostile requests answered wrongly (seed \(Self.seed)):\n\(failures.prefix(40).joined(separator: "\n"))")
        #expect(server.process.isRunning && server.process.processIdentifier == pid)
        guard server.process.isRunning else { return }

        // Nothing was appended; the server answers a normal request as it always does.
        let exportAfter = try server.get("/events", headers: read)
        #expect(exportAfter.status == 200 && exportAfter.body == exportBefore.body)
        let head = try server.headPosition()
        let normal = try server.post(
            "/commands", json: #"{"type":"app.launched","stream":"after-the-storm","hasOnboarded":false}"#,
            headers: ["Authorization": "Bearer \(HostileRequest.writeToken)"])
        #expect(normal.status == 200, "\(normal.text)")
        #expect(normal.text.hasPrefix(#"{"ok":true,"stream":"after-the-storm","positions":[\#(head + 1)],"version":1"#), "\(normal.text)")
        #expect(try server.headPosition() == head + 1)
        #expect(server.process.isRunning && server.process.processIdentifier == pid)
        #expect(!server.stderr.contains(#""status":"5"#), "\(server.stderr.split(separator: "\n").filter { $0.contains(#""status":"5"#) }.prefix(5))")
    }
}

extension HostileRequestsTests {
    /// Whether the server still runs: a refused connection says it does not, and after an answer
    /// that is none the process is given a moment to be reaped (`isRunning` lags a death).
    static func isAlive(_ server: ServedLog, after outcome: HostileRequest.Outcome) -> Bool {
        switch outcome {
        case .answered: return server.process.isRunning
        case .garbled(let text) where text.hasPrefix("connect"): return false
        case .closed, .garbled:
            usleep(50_000)
            return server.process.isRunning
        }
    }
}

extension HostileCatalogue {
    /// The reads of a session a crafted export opened: its list, the state now and at and past
    /// its last position, its events from and past the start, versions, the diff and bisect.
    static func sessionReads(_ id: String) -> [HostileRequest] {
        let prefix = "/sessions/\(id)/streams"
        return [
            "", "/crafted", "/crafted?at=0", "/crafted?at=1", "/crafted?at=9223372036854775806", "/crafted?at=9223372036854775807",
            "/crafted?at=99999999999999999999", "/crafted/events", "/crafted/events?fromVersion=9223372036854775807",
            "/crafted/events?fromVersion=2&limit=1000", "/crafted/versions/0", "/crafted/versions/1", "/crafted/versions/2",
            "/crafted/versions/9223372036854775807", "/crafted/bisect?invariant=all", "?limit=1000&after=crafted",
        ].map {
            HostileRequest.get(.sessionRead, prefix + $0, expect: .notServerError)
        }
    }
}

/// The outcomes of the slow clients, set from their threads.
final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [HostileRequest.Outcome?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ outcome: HostileRequest.Outcome) { lock.withLock { outcomes[index] = outcome } }
    var values: [HostileRequest.Outcome?] { lock.withLock { outcomes } }
}

/// One hostile request on a connection of its own, sent as its delivery says; what came back.
enum HostileExchange {
    static func send(_ request: HostileRequest, port: UInt16) -> HostileRequest.Outcome {
        let fd: Int32
        do { fd = try RawHTTP.connect(port: port, timeout: 20) } catch { return .garbled("\(error)") }
        defer { close(fd) }
        switch request.delivery {
        case .whole:
            try? RawHTTP.send(fd, request.bytes)
        case .halfClose:
            try? RawHTTP.send(fd, request.bytes)
            shutdown(fd, Int32(SHUT_WR))
        case .trickle(let chunk, let interval, let limit):
            // The head at once, then the body a few bytes at a time until the server answers or
            // the limit passes.
            let headEnd = (RawHTTP.find(request.bytes, Array("\r\n\r\n".utf8), from: 0) ?? 0) + 4
            try? RawHTTP.send(fd, Array(request.bytes[..<headEnd]))
            var offset = headEnd
            var waited = 0
            while offset < request.bytes.count, waited < limit, !readable(fd) {
                let end = min(offset + chunk, request.bytes.count)
                guard (try? RawHTTP.send(fd, Array(request.bytes[offset..<end]))) != nil else { break }
                offset = end
                usleep(UInt32(interval) * 1000)
                waited += interval
            }
        }
        let (bytes, closed) = readUntilClosed(fd)
        if bytes.isEmpty { return closed ? .closed : .garbled("nothing within 20 s") }
        guard let answer = try? RawHTTP.parse(bytes) else { return .garbled(String(decoding: bytes.prefix(200), as: UTF8.self)) }
        return .answered(status: answer.status, errorCode: answer.errorCode, body: answer.body)
    }

    static func readable(_ fd: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    /// Everything until the server closes (`true`), or the receive timeout passes (`false`).
    static func readUntilClosed(_ fd: Int32) -> ([UInt8], Bool) {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                result.append(contentsOf: buffer[0..<count])
                continue
            }
            if count == 0 { return (result, true) }
            switch errno {
            case EINTR: continue
            case ECONNRESET, EPIPE: return (result, true)
            default: return (result, false)
            }
        }
    }
}
