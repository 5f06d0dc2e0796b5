import FlowLogTesting
import Foundation
import Testing

/// The README's exit-status table, row by row: every status it lists is provoked here by a command
/// a user could run, and the table lists every status this test provokes, so neither can drift.
@Suite("the README's exit statuses")
struct ExitStatusTableTests {
    /// The statuses in the README's table (`| 64 | …`).
    static func statusesInTheReadme() throws -> [Int32] {
        let readme = try String(contentsOf: FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let table = readme.components(separatedBy: "### Exit status")[1].components(separatedBy: "\n## ")[0]
        return table.components(separatedBy: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: true)
            return cells.first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// A demo log in `folder/log`, and its `--db` arguments.
    private static func demoLog(_ folder: TemporaryDirectory) throws -> [String] {
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo"] + db)
        return db
    }

    private static let coupon = FlowLogProcess.fixtures.appendingPathComponent("bugs/coupon-over-100.ndjson").path

    /// One way to provoke each status, with a word the diagnostic must hold.
    static let scenarios: [Int32: @Sendable (TemporaryDirectory) throws -> (FlowLogProcess.Result, String)] = [
        0: { folder in (try FlowLogProcess.run(["demo", "--db", folder.child("log")]), "") },
        1: { folder in (try FlowLogProcess.run(["cart", "checkout", "--db", folder.child("log")]), "emptyCart") },
        3: { _ in (try FlowLogProcess.run(["bisect", "--file", coupon, "--stream", "session-4711", "--run", "exit 125"]), "") },
        64: { folder in (try FlowLogProcess.run(["state", "--format", "yaml", "--db", folder.child("log")]), "yaml") },
        65: { folder in
            try "not a log".write(toFile: folder.child("file"), atomically: true, encoding: .utf8)
            return (try FlowLogProcess.run(["state", "--db", folder.child("file")]), "is not a FlowLog log")
        },
        66: { folder in (try FlowLogProcess.run(["state", "--db", folder.child("missing")]), "There is no FlowLog log") },
        70: { folder in
            // Debug builds only: an error FlowLog does not know, as a bug would throw.
            (
                try FlowLogProcess.run(["state", "--db", folder.child("missing")], environment: ["FLOWLOG_TEST_UNEXPECTED_FAILURE": "1"]),
                "Please report it"
            )
        },
        73: { folder in (try FlowLogProcess.run(["system", "app-launched", "--db", folder.child("a/b/log")]), "does not exist") },
        74: { folder in
            let db = try demoLog(folder)
            return (try FlowLogProcess.run(["export", "--output", "/dev/full"] + db), "No space left on device")
        },
        75: { folder in
            let db = try demoLog(folder)
            let follower = Process()
            follower.executableURL = FlowLogProcess.executable
            follower.arguments = ["projections", "run", "--follow"] + db
            follower.standardOutput = FileHandle.nullDevice
            follower.standardError = FileHandle.nullDevice
            try follower.run()
            defer {
                kill(follower.processIdentifier, SIGKILL)
                follower.waitUntilExit()
            }
            // The holder writes its pid into the lock file once it has the lock.
            for _ in 0..<400 {
                let holder = try? String(contentsOfFile: folder.child("log/projector-storage.lock"), encoding: .utf8)
                if holder?.trimmingCharacters(in: .whitespacesAndNewlines) == String(follower.processIdentifier) { break }
                usleep(25_000)
            }
            return (try FlowLogProcess.run(["projections", "rebuild", "storage"] + db), "is being run by process \(follower.processIdentifier)")
        },
        77: { folder in
            let db = try demoLog(folder)
            chmod(folder.child("log/data.mdb"), 0o444)
            chmod(folder.child("log/lock.mdb"), 0o444)
            chmod(folder.child("log"), 0o555)
            chmod(folder.path, 0o755)
            defer { chmod(folder.child("log"), 0o755) }
            return (try FlowLogProcess.run(["system", "app-launched"] + db, launcher: FlowLogProcess.unprivileged), "Permission denied")
        },
        124: { _ in
            (try FlowLogProcess.run(["bisect", "--file", coupon, "--stream", "session-4711", "--run", "sleep 30", "--timeout", "0.2"]), "timeout")
        },
    ]

    @Test func theTableListsEveryStatusThisTestProvokes() throws {
        #expect(try Self.statusesInTheReadme().sorted() == Self.scenarios.keys.sorted())
    }

    @Test(arguments: try ExitStatusTableTests.statusesInTheReadme())
    func eachStatusOfTheTableIsWhatItsCaseExits(status: Int32) throws {
        guard let scenario = Self.scenarios[status] else {
            Issue.record("README lists exit status \(status), which no scenario here provokes")
            return
        }
        let folder = TemporaryDirectory()
        let (result, words) = try scenario(folder)
        #expect(result.status == status, "\(result.stdout) \(result.stderr)")
        #expect(words.isEmpty || result.stderr.contains(words), "\(status): \(result.stderr)")
        if status != 0 && status != 1 && status != 3 {
            #expect(result.stderr.hasPrefix("flowlog: ") || result.stderr.hasPrefix("Error: "), "a sentence on stderr: \(result.stderr)")
        }
    }
}
