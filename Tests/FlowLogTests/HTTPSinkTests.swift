@testable import FlowLog
import FlowLogLMDB
import FlowDomain
import FlowLogTesting
import Foundation
import Testing

/// A real HTTP collector on loopback (Tests/analyst/collector.py) that records what it receives.
private final class Collector {
    let process = Process()
    let record: String
    let port: Int

    init(folder: TemporaryDirectory, failFirst: Int) throws {
        record = folder.child("received.ndjson")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("analyst/collector.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, record, String(failFirst)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else { throw FlowLogError.input("the collector did not start") }
        self.port = port
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/v1/batch")! }

    /// The message ids of every call received, in the order received.
    func receivedIds() throws -> [String] {
        guard FileManager.default.fileExists(atPath: record) else { return [] }
        return try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").flatMap { body -> [String] in
            guard case .array(let calls)? = try JSONParser.parse(String(body))["batch"] else { return [] }
            return calls.compactMap { if case .string(let id)? = $0["messageId"] { id } else { nil } }
        }
    }

    deinit {
        // SIGKILL: the test runner's children may inherit an ignored SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

@Suite("HTTP batch sink")
struct HTTPSinkTests {
    private func log(in folder: TemporaryDirectory) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: folder.child("log"))
        var rng = SplitMix64(seed: 12)
        let generator = RandomCommands()
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
            .handle((0..<1_200).map { _ in CommandEnvelope(stream: "s\(Int.random(in: 0..<5, using: &rng))", command: generator.command(using: &rng)) })
        return log
    }

    private func expectedIds(_ log: LMDBEventLog) throws -> [String] {
        var json = JSONWriter()
        return try log.events().filter { json.reset(); return SegmentService().writeCall(for: $0, into: &json) }.map(\.eventId.description)
    }

    @Test func aCollectorThatFailsBrieflyGetsEverythingInOrderOnce() throws {
        let folder = TemporaryDirectory()
        let log = try log(in: folder)
        let collector = try Collector(folder: folder, failFirst: 2)
        let sink = HTTPBatchSink(url: collector.url, policy: .init(attempts: 4, firstDelay: 0.01, maximumDelay: 0.05, batchSize: 50))
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 300
        try runner.catchUp(TrackerProjector(service: SegmentService(), sink: sink, log: log))
        #expect(try collector.receivedIds() == expectedIds(log))
    }

    @Test func aCollectorThatKeepsFailingStopsTheTrackerUntilItRecovers() throws {
        let folder = TemporaryDirectory()
        let log = try log(in: folder)
        let collector = try Collector(folder: folder, failFirst: 7)
        let sink = HTTPBatchSink(url: collector.url, policy: .init(attempts: 3, firstDelay: 0.01, maximumDelay: 0.05, batchSize: 40))
        let tracker = TrackerProjector(service: SegmentService(), sink: sink, log: log)
        var runner = ProjectionRunner(log: log)
        runner.batchSize = 250
        for _ in 0..<2 {
            let error = #expect(throws: FlowLogError.self) { try runner.catchUp(tracker) }
            if case .delivery? = error {} else { Issue.record("expected a delivery failure, got \(String(describing: error))") }
            #expect(try tracker.checkpoint() == 0)
            #expect(try log.projectionStatus(of: [tracker.name]).first?.failure?.contains("refused 3 attempts") == true)
        }
        try runner.catchUp(tracker)
        #expect(try log.projectionStatus(of: [tracker.name]).first?.failure == nil)
        let received = try collector.receivedIds()
        var seen = Set<String>()
        #expect(received.filter { seen.insert($0).inserted } == (try expectedIds(log)), "everything, in order, once deduplicated")
    }

    @Test func backoffDoublesUpToItsCap() {
        let policy = HTTPBatchSink.RetryPolicy(attempts: 6, firstDelay: 0.1, maximumDelay: 0.5)
        #expect((2...6).map { policy.delay(beforeAttempt: $0) } == [0.1, 0.2, 0.4, 0.5, 0.5])
    }
}
