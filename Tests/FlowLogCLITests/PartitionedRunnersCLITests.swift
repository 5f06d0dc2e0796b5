import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

/// `projections run --partitions N` (issue 44, items 3 to 5): runners sharing the trackers' parts
/// on LMDB and PostgreSQL, joining, dying, paused and repartitioned, with every event's message
/// delivered once and each stream's in the log's order.
@Suite("runners sharing partitions", .serialized)
struct PartitionedRunnersCLITests {
    /// `count` commands over 13 streams, starting at command `start`.
    private static func send(_ count: Int, from start: Int, _ db: String) throws {
        let lines = (start..<start + count).map {
            #"{"type":"cart.addProduct","stream":"s\#($0 % 13)","productId":"p\#($0)","unitPrice":100,"quantity":1}"#
        }
        let sent = try FlowLogProcess.run(["send", "--db", db], stdin: lines.joined(separator: "\n") + "\n")
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    /// `projections status --format json`, one object per projector.
    private static func status(_ db: String) throws -> [JSONValue] {
        try FlowLogProcess.run(["projections", "status", "--format", "json", "--db", db]).stdoutLines.map { try JSONParser.parse($0) }
    }

    /// Waits until every projector (a split one: each part) stands at `head`.
    private static func waitUntilProjected(through head: Int, _ db: String, seconds: Double = 30) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let lines = try status(db)
            if lines.count == 3, lines.allSatisfy({ $0["checkpoint"] == .integer(head) }) { return true }
            usleep(50_000)
        }
        return false
    }

    /// The processes holding the parts of `tracker.segment`, by part.
    private static func holders(_ db: String) throws -> [Int] {
        guard case .array(let parts)? = try status(db).first(where: { $0["name"] == .string("tracker.segment") })?["partitions"] else { return [] }
        return parts.map { part in
            if case .integer(let pid)? = part["holder"]?["pid"] { pid } else { 0 }
        }
    }

    /// Waits until `tracker.segment`'s parts are held by exactly `runners` distinct processes.
    private static func waitForHolders(_ runners: Set<Int32>, _ db: String, seconds: Double = 15) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let held = try holders(db)
            if !held.isEmpty, Set(held.map { Int32($0) }) == runners { return true }
            usleep(100_000)
        }
        return false
    }

    /// Each stream's event ids in the log's order, and each stream's message ids in the order the
    /// Segment file got them.
    private static func streams(_ db: String, _ folder: TemporaryDirectory) throws -> (log: [String: [String]], delivered: [String: [String]]) {
        var log: [String: [String]] = [:]
        for line in try FlowLogProcess.run(["export", "--db", db]).stdoutLines {
            let event = try JSONParser.parse(line)
            guard case .string(let stream)? = event["stream"], case .string(let id)? = event["eventId"] else { continue }
            log[stream, default: []].append(id)
        }
        var delivered: [String: [String]] = [:]
        // No file (the messages went to a collector): nothing delivered to one.
        let file = (try? String(contentsOfFile: folder.child("trackers/segment.ndjson"), encoding: .utf8)) ?? ""
        for line in file.split(separator: "\n") {
            let message = try JSONParser.parse(String(line))
            guard case .string(let stream)? = message["anonymousId"], case .string(let id)? = message["messageId"] else { continue }
            delivered[stream, default: []].append(id)
        }
        return (log, delivered)
    }

    private static func database(_ backend: String, _ folder: TemporaryDirectory) -> String {
        backend == "lmdb" ? folder.child("log") : PostgresServer.shared.url(schema: PostgresServer.shared.freshName("parts"))
    }

    @Test(arguments: ["lmdb", "postgres"])
    func runnersShareFourPartsAndOneJoiningOrDyingLosesNoEvent(backend: String) throws {
        let folder = TemporaryDirectory()
        let db = Self.database(backend, folder)
        let run = ["projections", "run", "--follow", "--db", db, "--tracker-dir", folder.child("trackers")]
        try Self.send(100, from: 0, db)
        let first = try BackgroundFlowLog(run + ["--partitions", "4"], in: folder, name: "first")
        #expect(first.waitFor("took tracker.segment.part-4-of-4"), "\(first.output)\(first.errors)")
        let second = try BackgroundFlowLog(run, in: folder, name: "second")
        #expect(try Self.waitForHolders([first.pid, second.pid], db), "two runners share the parts: \((try? Self.holders(db)) ?? [])")
        try Self.send(100, from: 100, db)
        #expect(try Self.waitUntilProjected(through: 200, db))

        // A third joins: it takes parts from the two, without a gap or a repeat.
        let third = try BackgroundFlowLog(run, in: folder, name: "third")
        #expect(try Self.waitForHolders([first.pid, second.pid, third.pid], db), "\((try? Self.holders(db)) ?? [])")
        try Self.send(100, from: 200, db)
        #expect(try Self.waitUntilProjected(through: 300, db))
        var (log, delivered) = try Self.streams(db, folder)
        #expect(delivered == log, "every event's message once, each stream in the log's order")

        // One dies: the others take its parts over at once (its leases went with it).
        #expect(second.stop(SIGKILL) != nil)
        #expect(try Self.waitForHolders([first.pid, third.pid], db, seconds: 5), "\((try? Self.holders(db)) ?? [])")
        try Self.send(100, from: 300, db)
        #expect(try Self.waitUntilProjected(through: 400, db))
        (log, delivered) = try Self.streams(db, folder)
        #expect(delivered == log)
        #expect(first.stop() == 0 && third.stop() == 0, "\(first.errors)\(third.errors)")
    }

    /// Three runners post to a collector that answers after 50 ms; the one running the most is
    /// killed in the middle of its batches. The others take its parts; every event's message reaches
    /// the collector, and what came twice is at most the request each of its parts had in flight.
    @Test(arguments: ["lmdb", "postgres"])
    func aRunnerKilledMidBatchRepeatsAtMostItsRequestsInFlight(backend: String) throws {
        let folder = TemporaryDirectory()
        let db = Self.database(backend, folder)
        let script = FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("Tests/collectors/vendor_collector.py").path
        let record = folder.child("record.ndjson")
        let (collector, port) = try PortPrintingServer.start(["python3", script, "--segment-auth-mode", "none", "--slow", "0.05", "--record", record])
        defer {
            kill(collector.processIdentifier, SIGKILL)
            collector.waitUntilExit()
        }
        try "KEY\n".write(toFile: folder.child("key"), atomically: true, encoding: .utf8)
        let run = [
            "projections", "run", "--follow", "--db", db, "--tracker-dir", folder.child("trackers"), "--batch-size", "4",
            "--segment-url", "http://127.0.0.1:\(port)/v1/batch", "--write-key-file", folder.child("key"),
        ]
        try Self.send(13, from: 0, db)
        let runners = try (0..<3).map { index in
            let runner = try BackgroundFlowLog(run + (index == 0 ? ["--partitions", "4"] : []), in: folder, name: "runner\(index)")
            if index == 0 { #expect(runner.waitFor("took tracker.segment.part-4-of-4"), "\(runner.output)\(runner.errors)") }
            return runner
        }
        #expect(try Self.waitForHolders(Set(runners.map(\.pid)), db), "\((try? Self.holders(db)) ?? [])")
        #expect(try Self.waitUntilProjected(through: 13, db))
        try Self.send(377, from: 13, db)
        usleep(300_000)
        let held = try Self.holders(db)
        let victim = runners.max { a, b in held.filter { $0 == a.pid }.count < held.filter { $0 == b.pid }.count }!
        let victimParts = held.filter { $0 == victim.pid }.count
        #expect(victim.stop(SIGKILL) != nil)
        #expect(try Self.waitUntilProjected(through: 390, db, seconds: 60))

        var delivered: [String: Int] = [:]
        var firstRequest: [String: Int] = [:]
        for (index, line) in try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").enumerated() {
            guard case .array(let batch)? = try JSONParser.parse(String(line))["body"]?["batch"] else { continue }
            for message in batch {
                guard case .string(let id)? = message["messageId"] else { continue }
                delivered[id, default: 0] += 1
                if firstRequest[id] == nil { firstRequest[id] = index }
            }
        }
        let log = try Self.streams(db, folder).log
        #expect(Set(delivered.keys) == Set(log.values.joined()), "every event's message at least once")
        let repeatedRequests = Set(delivered.filter { $0.value > 1 }.keys.map { firstRequest[$0]! })
        #expect(repeatedRequests.count <= victimParts, "repeats only from the requests in flight: \(repeatedRequests.count) for \(victimParts) parts")
        #expect(delivered.values.allSatisfy { $0 <= 2 })
        // The storage read model, current now, answers `state`: each cart as a replay of the log
        // folds it (`--at` the head), so no event was applied twice or missed wherever storage ran.
        for stream in log.keys {
            let current = try FlowLogProcess.run(["state", "--stream", stream, "--format", "json", "--db", db])
            let replayed = try FlowLogProcess.run(["state", "--stream", stream, "--at", "390", "--format", "json", "--db", db])
            #expect(current.status == 0 && current.stdout == replayed.stdout, "\(stream): \(current.stdout) against \(replayed.stdout)")
        }
        for runner in runners where runner !== victim { #expect(runner.stop() == 0, "\(runner.errors)") }
    }

    /// PostgreSQL's leases expire: a runner paused (SIGSTOP) past `--lease-timeout` has its parts
    /// taken by the other, and, resumed, stops with exit 75 having delivered nothing more.
    @Test func aPausedRunnerHasItsPartsTakenAndStopsWhenResumed() throws {
        let folder = TemporaryDirectory()
        let db = Self.database("postgres", folder)
        let run = ["projections", "run", "--follow", "--lease-timeout", "2", "--db", db, "--tracker-dir", folder.child("trackers")]
        try Self.send(60, from: 0, db)
        let first = try BackgroundFlowLog(run + ["--partitions", "4"], in: folder, name: "first")
        #expect(first.waitFor("took tracker.segment.part-4-of-4"), "\(first.output)\(first.errors)")
        let second = try BackgroundFlowLog(run, in: folder, name: "second")
        #expect(try Self.waitForHolders([first.pid, second.pid], db), "\((try? Self.holders(db)) ?? [])")
        #expect(try Self.waitUntilProjected(through: 60, db))

        kill(second.pid, SIGSTOP)
        let paused = Date()
        try Self.send(60, from: 60, db)
        #expect(try Self.waitForHolders([first.pid], db, seconds: 10), "\((try? Self.holders(db)) ?? [])")
        let takeover = Date().timeIntervalSince(paused)
        #expect(takeover >= 1.5 && takeover < 8, "taken once the leases expired (2 s): \(takeover) s")
        #expect(try Self.waitUntilProjected(through: 120, db))

        kill(second.pid, SIGCONT)
        // Asked before its next batch or request; a loaded machine may take a while to get there.
        #expect(second.stop(0, seconds: 30) == 75, "\(second.errors)")
        #expect(second.errors.contains("lost its lease"), "\(second.errors)")
        try Self.send(30, from: 120, db)
        #expect(try Self.waitUntilProjected(through: 150, db))
        let (log, delivered) = try Self.streams(db, folder)
        #expect(delivered == log, "the resumed runner delivered nothing")
        #expect(first.stop() == 0)
    }

    /// `projections repartition` while runners run: the old parts are caught up to one position and
    /// the new ones start there, so nothing is missed or sent twice.
    @Test(arguments: ["lmdb", "postgres"])
    func repartitioningWhileRunnersRunLosesAndRepeatsNothing(backend: String) throws {
        let folder = TemporaryDirectory()
        let db = Self.database(backend, folder)
        let trackers = ["--tracker-dir", folder.child("trackers")]
        let run = ["projections", "run", "--follow", "--db", db] + trackers
        try Self.send(80, from: 0, db)
        let first = try BackgroundFlowLog(run + ["--partitions", "4"], in: folder, name: "first")
        #expect(first.waitFor("took tracker.segment.part-4-of-4"), "\(first.output)\(first.errors)")
        let second = try BackgroundFlowLog(run, in: folder, name: "second")
        #expect(try Self.waitForHolders([first.pid, second.pid], db))
        try Self.send(80, from: 80, db)

        let moved = try FlowLogProcess.run(
            ["projections", "repartition", "--partitions", "2", "--format", "json", "--db", db] + trackers, launcher: ["/usr/bin/timeout", "60"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdoutLines.first?.contains(#""from":4,"partitions":2"#) == true, "\(moved.stdout)")
        try Self.send(80, from: 160, db)
        #expect(try Self.waitUntilProjected(through: 240, db))
        #expect(try Self.holders(db).count == 2)
        let (log, delivered) = try Self.streams(db, folder)
        #expect(delivered == log)

        let again = try FlowLogProcess.run(["projections", "run", "--partitions", "3", "--db", db] + trackers)
        #expect(again.status == 64 && again.stderr.contains("projections repartition --partitions 3"), "\(again.stderr)")
        #expect(first.stop() == 0 && second.stop() == 0)
    }

    /// The part of a stream is the same in every build and on every machine: a stored partition
    /// count would otherwise send a stream's events through two parts.
    @Test func aStreamsPartIsFixed() {
        #expect((0..<8).map { ProjectorPartition.index(of: "s\($0)", count: 4) } == [2, 1, 0, 3, 2, 1, 0, 3])
        #expect(ProjectorPartition.index(of: "", count: 4) == 1)
        #expect(ProjectorPartition.index(of: "anything", count: 1) == 0)
        #expect(ProjectorPartition(index: 1, count: 4).name(of: "tracker.ga4") == "tracker.ga4.part-2-of-4")
        let spread = Dictionary(grouping: (0..<4_000).map { ProjectorPartition.index(of: "session-\($0)", count: 4) }, by: { $0 }).mapValues(\.count)
        #expect(spread.values.allSatisfy { (800...1_200).contains($0) }, "\(spread)")
    }
}
