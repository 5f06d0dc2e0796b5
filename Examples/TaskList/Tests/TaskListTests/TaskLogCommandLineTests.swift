import Foundation
import Testing

/// `tasklog`, the program, run as a person runs it: FlowLog's generic subcommands, compiled for the
/// list, on an LMDB folder and on a PostgreSQL log. Each step checks what the subcommand printed
/// and its exit status, as `flowlog`'s own command-line tests do for the shop.
@Suite("tasklog, the list's command line")
struct TaskLogCommandLineTests {
    /// The built `tasklog`, beside the test bundle.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tasklog")

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `tasklog` (or `program`) with `arguments`, `input` on its standard input; waits for it to exit.
    static func run(_ arguments: [String], input: String = "", program: URL = executable) throws -> Run {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        (process.standardInput, process.standardOutput, process.standardError) = (stdin, stdout, stderr)
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // Read both to their end before waiting: a full pipe would block the program.
        nonisolated(unsafe) var errors = Data()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { errors = stderr.fileHandleForReading.readDataToEndOfFile() }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self), stderr: String(decoding: errors, as: UTF8.self))
    }

    static let commands = """
        {"type":"task.add","stream":"list-1","taskId":"t1","title":"Buy milk"}
        {"type":"task.add","stream":"list-1","taskId":"t2","title":"Call Bob"}
        {"type":"task.rename","stream":"list-1","taskId":"t1","title":"Buy oat milk"}
        {"type":"task.complete","stream":"list-1","taskId":"t1"}
        {"type":"task.complete","stream":"list-1","taskId":"t1"}
        {"type":"cart.addProduct","stream":"list-1","productId":"p1"}
        {"type":"task.add","stream":"list-2","taskId":"a","title":"Read"}

        """

    @Test(arguments: TaskLogTests.Backend.allCases)
    func everyGenericSubcommandWorksForTheList(on backend: TaskLogTests.Backend) throws {
        let folder = try TaskLogTests.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = backend.freshLog(in: folder, named: "list")

        // send: the list's rules decide; a refusal and an unknown type are answered, not appended.
        let sent = try Self.run(["send", "--db", db], input: Self.commands)
        #expect(sent.status == 1, "a refused command makes send exit 1: \(sent.stderr)")
        let answers = sent.stdout.split(separator: "\n")
        #expect(answers.count == 7)
        #expect(answers[4].contains(#""code":"taskAlreadyCompleted""#))
        #expect(answers[5].contains(#""code":"unknownCommand""#) && answers[5].contains("task.add, task.rename, task.complete, task.reopen"))
        #expect(answers[6].contains(#""positions":[5]"#))

        // A typed command, derived from the list's declarations.
        let typed = try Self.run(["task", "reopen", "--task", "t1", "--stream", "list-1", "--db", db])
        #expect(typed.status == 0 && typed.stdout.hasPrefix("accepted task.reopen: stream list-1, position 6, version 5"), "\(typed)")
        let refused = try Self.run(["task", "add", "--task", "t2", "--title", "Again", "--stream", "list-1", "--db", db])
        #expect(refused.status == 1 && refused.stderr.contains("tasklog: task.add was rejected (taskExists)"), "\(refused)")

        // state, now and at a position, as text and JSON.
        let state = try Self.run(["state", "--stream", "list-1", "--db", db])
        #expect(state.status == 0)
        #expect(state.stdout.contains("Tasks (2 open of 2)") && state.stdout.contains("[ ] t1           Buy oat milk"), "\(state.stdout)")
        let earlier = try Self.run(["state", "--stream", "list-1", "--at", "4", "--format", "json", "--db", db])
        #expect(
            earlier.stdout.hasPrefix(
                #"{"stream":"list-1","version":4,"tasks":[{"taskId":"t1","title":"Buy oat milk","completed":true},"#), "\(earlier.stdout)")

        // log, replay, replay --verify, bisect with the list's invariants, verify.
        let log = try Self.run(["log", "--db", db])
        #expect(log.status == 0 && log.stdout.contains("task.renamed") && log.stdout.contains(#"{"taskId":"t1","title":"Buy oat milk"}"#))
        let replay = try Self.run(["replay", "--stream", "list-1", "--summary", "--db", db])
        #expect(replay.stdout.contains("list-1 v5: 2 tasks, 2 open"), "\(replay.stdout)")
        let verified = try Self.run(["replay", "--verify", "--db", db])
        #expect(verified.status == 0 && verified.stdout.contains("all agree"), "\(verified)")
        let invariants = try Self.run(["bisect", "--stream", "list-1", "--list-invariants", "--db", db])
        #expect(invariants.stdout.contains("open-tasks") && !invariants.stdout.contains("cart"), "\(invariants.stdout)")
        let bisect = try Self.run(["bisect", "--stream", "list-1", "--invariant", "all", "--db", db])
        #expect(bisect.status == 0 && bisect.stdout.contains("passes the check"), "\(bisect)")
        #expect(try Self.run(["verify", "--db", db]).stdout.contains("intact: 6 events in 2 streams"))

        // export, import, copy (to the other backend too), streams, schema.
        let export = folder + "/list.ndjson"
        #expect(try Self.run(["export", "--output", export, "--db", db]).status == 0)
        let csv = try Self.run(["export", "--format", "csv", "--db", db])
        #expect(csv.stdout.hasPrefix("message_id,event,stream,position,version,") && csv.stdout.contains(",task_id,title,"), "\(csv.stdout)")
        let imported = backend.freshLog(in: folder, named: "imported")
        let importing = try Self.run(["import", export, "--db", imported])
        #expect(importing.stdout.contains("imported 6 events"), "\(importing)")
        #expect(try Self.run(["replay", "--verify", "--db", imported]).status == 0)
        // Into the other backend: LMDB to PostgreSQL, PostgreSQL to LMDB.
        let copied = (backend == .lmdb ? TaskLogTests.Backend.allCases.last! : .lmdb).freshLog(in: folder, named: "copied")
        let copy = try Self.run(["copy", "--from", db, "--to", copied])
        #expect(copy.status == 0, "\(copy)")
        #expect(try Self.run(["state", "--stream", "list-1", "--db", copied]).stdout == state.stdout.replacingOccurrences(of: db, with: copied))
        #expect(try Self.run(["streams", "--db", db]).stdout.contains("list-2"))
        #expect(try Self.run(["schema", "events"]).stdout.contains("task.completed"))

        // backup (LMDB's own copy), upgrade (nothing to do on a new log), snapshots.
        if backend == .lmdb {
            let backup = try Self.run(["backup", "--to", folder + "/backup", "--db", db])
            #expect(backup.status == 0, "\(backup)")
            #expect(try Self.run(["verify", "--db", folder + "/backup"]).status == 0)
        }
        #expect(try Self.run(["upgrade", "--db", db]).stdout.contains("nothing was changed"))
        #expect(try Self.run(["snapshots", "--db", db]).status == 0)

        // forget, retain, compact: the list's session leaves the log, and no vendor is named.
        let forgot = try Self.run(["forget", "--stream", "list-2", "--db", db])
        #expect(forgot.status == 0 && forgot.stdout.contains("forgot stream list-2") && !forgot.stdout.contains("Segment"), "\(forgot)")
        #expect(try Self.run(["state", "--stream", "list-2", "--db", db]).status == 66)
        #expect(try Self.run(["retain", "--db", db]).stdout.contains("retention of"))
        let compact = try Self.run(["compact", "--db", db])
        #expect(compact.status == 0 && compact.stdout.hasPrefix("compacted"), "\(compact)")
        #expect(try Self.run(["verify", "--db", db]).status == 0)
    }

    @Test func theProgramIsNamedForTheList() throws {
        let help = try Self.run(["--help"])
        #expect(help.stdout.contains("USAGE: tasklog <subcommand>") && help.stdout.contains("task "))
        for shopOnly in ["demo", "orders", "projections", "cart"] {
            #expect(!help.stdout.contains("\n  \(shopOnly) "), "tasklog offers no \(shopOnly)")
        }
        let unknown = try Self.run(["demo"])
        #expect(unknown.status == 64)
        let noLog = try Self.run(["state", "--stream", "list-1", "--db", "/nonexistent/list.lmdb"])
        #expect(noLog.status == 66 && noLog.stderr.contains("`tasklog task add --task t1"), "\(noLog.stderr)")
        // The core's messages name the program's commands.
        let folder = try TaskLogTests.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"{"type":"task.added"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/not-an-export.ndjson"))
        let notAnExport = try Self.run(["replay", "--file", folder + "/not-an-export.ndjson"])
        #expect(notAnExport.status == 65 && notAnExport.stderr.contains("Give a file that `tasklog export` wrote."), "\(notAnExport.stderr)")
    }
}
