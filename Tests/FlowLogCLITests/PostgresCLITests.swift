import FlowLogTesting
import Foundation
import Testing

/// The command line on a PostgreSQL log (`--db postgres://…`), against the same commands on an
/// LMDB folder: the same answers, states and exports byte for byte, copies both ways, errors by
/// exit status without the password, and many writer processes with followers that see every
/// position once, in order.
@Suite("PostgreSQL from the command line", .serialized)
struct PostgresCLITests {
    private let server = PostgresServer.shared

    private func fixture(_ path: String) -> String { FlowLogProcess.fixtures.appendingPathComponent(path).path }

    @Test func aLogInPostgreSQLAnswersAsAnLMDBLogDoes() throws {
        let folder = TemporaryDirectory()
        let lmdb = folder.child("log.lmdb")
        let postgres = server.url()
        let input = try String(contentsOfFile: fixture("commands/cart-rules.ndjson"), encoding: .utf8)
        let sent = try [lmdb, postgres].map { try FlowLogProcess.run(["send", "--db", $0], stdin: input) }
        #expect(sent[0].status == sent[1].status)
        #expect(sent[0].stdout == sent[1].stdout)
        for bug in ["bugs/coupon-over-100.ndjson", "bugs/empty-checkout.ndjson"] {
            let imported = folder.child("import-\(bug.count).lmdb")
            let importedPostgres = server.url()
            for db in [imported, importedPostgres] {
                #expect(try FlowLogProcess.run(["import", fixture(bug), "--db", db]).status == 0)
            }
            for arguments in [
                ["export"], ["export", "--format", "csv"], ["log", "--format", "json"], ["streams", "--format", "json"],
                ["replay", "--summary", "--format", "json"], ["verify"], ["replay", "--verify"],
            ] {
                let answers = try [imported, importedPostgres].map { try FlowLogProcess.run(arguments + ["--db", $0]) }
                #expect(answers[0].status == answers[1].status, "\(arguments): \(answers[1].stderr)")
                if arguments == ["verify"] || arguments == ["replay", "--verify"] { continue }
                #expect(answers[0].stdout == answers[1].stdout, "\(arguments)")
            }
        }
        let typed = try FlowLogProcess.run([
            "cart", "add", "--product", "p1", "--price", "2.50", "--stream", "t", "--format", "json", "--db", postgres,
        ])
        #expect(typed.status == 0, "\(typed.stderr)")
        let state = try FlowLogProcess.run(["state", "--stream", "t", "--format", "json", "--db", postgres])
        #expect(state.stdout.contains(#""unitPrice":250"#))
    }

    @Test func aCopyBetweenBackendsIsTheSameLog() throws {
        let folder = TemporaryDirectory()
        let source = folder.child("source.lmdb")
        #expect(try FlowLogProcess.run(["import", fixture("bugs/coupon-over-100.ndjson"), "--db", source]).status == 0)
        let postgres = server.url()
        let back = folder.child("back.lmdb")
        let there = try FlowLogProcess.run(["copy", "--from", source, "--to", postgres])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.stdout.hasPrefix("copied "))
        #expect(try FlowLogProcess.run(["copy", "--from", postgres, "--to", back]).status == 0)
        let exports = try [source, postgres, back].map { try FlowLogProcess.run(["export", "--db", $0]).stdout }
        #expect(exports[0] == exports[1] && exports[1] == exports[2])
        for db in [postgres, back] { #expect(try FlowLogProcess.run(["verify", "--db", db]).status == 0) }
        let again = try FlowLogProcess.run(["copy", "--from", source, "--to", postgres])
        #expect(again.status == 64, "a copy into a log that holds events is refused")
    }

    /// An import into PostgreSQL that holds four streams at a time sets the others aside on local
    /// disk, under TMPDIR, and takes them back: the log exports and verifies as the source, its
    /// streams' versions included, and the folder is gone when the import ends.
    @Test func anImportSetsStreamsAsideOnLocalDiskAndRemovesThem() throws {
        let folder = TemporaryDirectory()
        let source = folder.child("source.lmdb")
        // Sixty sessions, visited in turn four times: each comes back after the others.
        let commands = (0..<4).flatMap { round in
            (0..<60).map { #"{"type":"cart.addProduct","stream":"v\#($0)","productId":"p\#(round)","unitPrice":100,"quantity":1}"# }
        }
        #expect(try FlowLogProcess.run(["send", "--db", source], stdin: commands.joined(separator: "\n") + "\n").status == 0)
        let exported = try FlowLogProcess.run(["export", "--db", source]).stdout
        try exported.write(toFile: folder.child("export.ndjson"), atomically: false, encoding: .utf8)
        let scratch = folder.child("tmp")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let postgres = server.url()
        let imported = try FlowLogProcess.run(
            ["import", folder.child("export.ndjson"), "--db", postgres],
            environment: ["FLOWLOG_TEST_IMPORT_STREAMS_HELD": "4", "TMPDIR": scratch])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
        #expect(try FlowLogProcess.run(["export", "--db", postgres]).stdout == exported)
        #expect(try FlowLogProcess.run(["verify", "--db", postgres]).status == 0)
        let streams = try [source, postgres].map { try FlowLogProcess.run(["streams", "--format", "json", "--db", $0]).stdout }
        #expect(streams[0] == streams[1])
    }

    @Test func connectionProblemsHaveTheirExitStatusAndNeverShowThePassword() throws {
        let refused = try FlowLogProcess.run(["state", "--db", "postgres://someone:topsecret@127.0.0.1:1/x"])
        #expect(refused.status == 74)
        let wrongPassword = try FlowLogProcess.run(["state", "--db", server.tcpURL(user: PostgresServer.passwordRole, password: "topsecret")])
        #expect(wrongPassword.status == 77)
        let missing = try FlowLogProcess.run([
            "state", "--db",
            server.tcpURL(
                user: PostgresServer.passwordRole, password: PostgresServer.password,
                database: "no_such_database"),
        ])
        #expect(missing.status == 66)
        for result in [refused, wrongPassword, missing] {
            #expect(!result.stderr.contains("topsecret") && !result.stderr.contains(PostgresServer.password), "\(result.stderr)")
            #expect(!result.stderr.isEmpty)
        }
    }

    /// The server restarts while `send` streams commands into it: `send` stops with exit 74 and a
    /// message about the connection, every command it acknowledged is in the log, and it answered
    /// no line whose transaction did not commit.
    @Test func aServerRestartMidSendLosesNoAcknowledgedCommand() throws {
        let own = try PostgresServer()
        defer { own.stop() }
        let url = own.url()
        let lines = (0..<4_000).map { #"{"type":"app.launched","stream":"r\#($0 % 20)","hasOnboarded":true,"id":"r-\#($0)"}"# }
        let send = try Spawned(FlowLogProcess.executable.path, ["send", "--db", url], input: lines, pause: 20_000)
        // Restarted once send has committed something, however slowly a loaded machine starts it.
        for _ in 0..<300 {
            let streams = try FlowLogProcess.run(["streams", "--format", "json", "--db", url])
            if streams.status == 0, !streams.stdout.isEmpty { break }
            usleep(50_000)
        }
        try own.restart()
        let result = send.wait()
        #expect(result.status == 74, "\(result.stderr)")
        // Lost mid-query, refused while the server was going down or coming back, or not reached
        // while its socket was gone: each way the message says what happened to the connection,
        // and names no password.
        let message = result.stderr.lowercased()
        #expect(
            message.contains("connection") || message.contains("shutting down or starting up") || message.contains("cannot connect"),
            "\(result.stderr)")
        let answers = result.stdout.split(separator: "\n")
        #expect(answers.count > 0 && answers.count < lines.count, "the restart came mid-stream: \(answers.count) answers")
        #expect(
            answers.allSatisfy { $0.contains(#""ok":true"#) }, "no line is answered as failed: \(answers.first { !$0.contains(#""ok":true"#) } ?? "")"
        )
        let logged = try FlowLogProcess.run(["log", "--format", "json", "--db", url])
        #expect(logged.status == 0, "\(logged.stderr)")
        let loggedIds = Set(
            logged.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                return object["causationId"] as? String
            })
        // Answers come in input order, one a line.
        let acknowledged = (0..<answers.count).map { "r-\($0)" }
        #expect(acknowledged.filter { !loggedIds.contains($0) }.isEmpty, "every acknowledged command is in the log")
    }

    /// `projections run --follow` on a PostgreSQL log wakes on the appending transaction's NOTIFY,
    /// projects the new order into the read model, and after a restart resumes from its checkpoint
    /// row: the order placed while it was down is projected, and the first is not projected twice.
    @Test func aFollowingProjectionRunnerWakesOnNewEventsAndResumesAfterARestart() throws {
        let url = server.url()
        let order: (String) -> String = { id in
            [
                #"{"type":"cart.addProduct","stream":"f","productId":"p","unitPrice":250,"quantity":2}"#,
                #"{"type":"cart.checkout","stream":"f"}"#,
                #"{"type":"payment.succeeded","stream":"f","orderId":"\#(id)"}"#,
            ].joined(separator: "\n") + "\n"
        }
        #expect(
            try FlowLogProcess.run(["send", "--db", url], stdin: #"{"type":"app.launched","stream":"f","hasOnboarded":true}"# + "\n").status == 0)
        func ordersOnceProjected(count: Int) throws -> [String] {
            for _ in 0..<200 {
                let lines = try FlowLogProcess.run(["orders", "--format", "json", "--db", url]).stdout.split(separator: "\n").map(String.init)
                if lines.count >= count { return lines }
                usleep(100_000)
            }
            return []
        }
        // In a folder of its own: on a PostgreSQL log the trackers' files go to ./flowlog-tracker.
        let folder = TemporaryDirectory()
        let runner = try Spawned(FlowLogProcess.executable.path, ["projections", "run", "--follow", "--db", url], in: folder.path)
        #expect(try FlowLogProcess.run(["send", "--db", url], stdin: order("o-1")).status == 0)
        #expect(try ordersOnceProjected(count: 1).count == 1)
        runner.terminate()
        let stopped = runner.wait()
        #expect(stopped.status == 0, "SIGTERM stops a following runner cleanly: \(stopped.stderr)")

        #expect(try FlowLogProcess.run(["send", "--db", url], stdin: order("o-2")).status == 0)
        let restarted = try Spawned(FlowLogProcess.executable.path, ["projections", "run", "--follow", "--db", url], in: folder.path)
        let orders = try ordersOnceProjected(count: 2)
        restarted.terminate()
        _ = restarted.wait()
        #expect(orders.count == 2)
        #expect(orders.first?.contains(#""orderId":"o-1""#) == true)
        #expect(orders.last?.contains(#""orderId":"o-2""#) == true)
    }

    /// Eight `send` processes append 2,000 commands each over 50 streams, in many small commits,
    /// while two `log --follow` processes read: each follower sees every position once, in order,
    /// and every acknowledged command is in the log.
    @Test func eightWritersAndTwoFollowersSeeEveryPositionOnceInOrder() throws {
        let url = server.url()
        let writers = 8
        let perWriter = 2_000
        let total = writers * perWriter + 1
        // The log exists before the followers start (a follower waits on a log, it does not create one).
        _ = try FlowLogProcess.run(["send", "--db", url], stdin: #"{"type":"app.launched","stream":"setup","hasOnboarded":false}"# + "\n")
        let followers = try (0..<2).map { _ in
            try Spawned(FlowLogProcess.executable.path, ["log", "--follow", "--format", "json", "--to-position", "\(total)", "--db", url])
        }
        let sends = try (0..<writers).map { writer in
            try Spawned(
                FlowLogProcess.executable.path, ["send", "--db", url],
                input: (0..<perWriter).map { index in
                    #"{"type":"app.launched","stream":"s\#((writer * 7 + index) % 50)","hasOnboarded":\#(index % 2 == 0),"id":"w\#(writer)-\#(index)"}"#
                })
        }
        var acknowledged: [Int] = []
        for send in sends {
            let result = send.wait()
            #expect(result.status == 0, "\(result.stderr) \(result.stdout.split(separator: "\n").first { !$0.contains(#""ok":true"#) } ?? "")")
            for line in result.stdout.split(separator: "\n") {
                guard let data = line.data(using: .utf8), let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                    answer["ok"] as? Bool == true, let positions = answer["positions"] as? [Int]
                else { continue }
                acknowledged += positions
            }
        }
        #expect(acknowledged.count == total - 1)
        #expect(Set(acknowledged).count == total - 1)
        // Followers wait for the last position; when a writer failed it never comes.
        if acknowledged.count != total - 1 { for follower in followers { follower.terminate() } }
        for follower in followers {
            let result = follower.wait()
            #expect(result.status == 0, "\(result.stderr)")
            let positions = result.stdout.split(separator: "\n").compactMap { line -> Int? in
                guard let data = line.data(using: .utf8), let event = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                    return nil
                }
                return event["position"] as? Int
            }
            // Compared by count and first difference: a whole array in a failure message drowns the log.
            #expect(positions.count == total)
            let firstWrong = zip(positions, 1...).first { $0.0 != $0.1 }
            #expect(firstWrong == nil, "a follower saw position \(firstWrong?.0 ?? 0) where \(firstWrong?.1 ?? 0) belonged")
        }
    }
}

/// A `flowlog` process whose input is written a few lines at a time (so `send` commits many small
/// batches while the others do) and whose output is collected.
private final class Spawned: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var collected = Data()
    private var collectedErrors = Data()
    private let done = DispatchGroup()

    /// `pause`: microseconds between two chunks of 25 input lines.
    init(_ executable: String, _ arguments: [String], input: [String]? = nil, pause: UInt32 = 2_000, in directory: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        let feed = input.map { _ in Pipe() }
        process.standardInput = feed ?? FileHandle.nullDevice
        for (pipe, keep) in [(output, true), (errors, false)] {
            done.enter()
            Thread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                if keep { self.collected = data } else { self.collectedErrors = data }
                self.done.leave()
            }.start()
        }
        try process.run()
        if let feed, let lines = input {
            signal(SIGPIPE, SIG_IGN)
            Thread {
                for start in stride(from: 0, to: lines.count, by: 25) {
                    let chunk = lines[start..<min(start + 25, lines.count)].joined(separator: "\n") + "\n"
                    // A process that stopped reading (send after a lost connection) ends the feed.
                    guard (try? feed.fileHandleForWriting.write(contentsOf: Data(chunk.utf8))) != nil else { break }
                    usleep(pause)
                }
                try? feed.fileHandleForWriting.close()
            }.start()
        }
    }

    func terminate() { process.terminate() }

    func wait() -> (status: Int32, stdout: String, stderr: String) {
        process.waitUntilExit()
        done.wait()
        return (process.terminationStatus, String(decoding: collected, as: UTF8.self), String(decoding: collectedErrors, as: UTF8.self))
    }
}
