import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `--format json` on every command that prints a result: every line of its standard output is one
/// JSON document. And no colour anywhere: FlowLog writes none, to a terminal or not, so none can
/// leak into a file, a pipe, or a terminal whose user set NO_COLOR.
@Suite("JSON on every command, and no colour")
struct JSONAndColourCLITests {
    /// A log with a demo session, its export and a file holding the trace of its states.
    private func setUp(_ folder: TemporaryDirectory) throws -> [String] {
        let db = ["--db", folder.child("log")]
        #expect(try FlowLogProcess.run(["demo"] + db).status == 0)
        let export = try FlowLogProcess.run(["export"] + db)
        try export.stdout.write(toFile: folder.child("export.ndjson"), atomically: true, encoding: .utf8)
        return db
    }

    private func commands(_ folder: TemporaryDirectory) -> [[String]] {
        let db = ["--db", folder.child("log")]
        return [
            ["cart", "add", "--product", "p9", "--price", "1", "--stream", "j"] + db,
            ["state", "--stream", "demo-1"] + db, ["view", "--stream", "demo-1"] + db, ["orders"] + db, ["streams"] + db,
            ["replay", "--stream", "demo-1"] + db, ["replay", "--summary"] + db, ["replay", "--verify"] + db,
            ["bisect", "--stream", "demo-1", "--invariant", "all"] + db, ["bisect", "--list-invariants"],
            ["snapshots"] + db, ["snapshots", "--interval", "500"] + db, ["verify"] + db,
            ["projections", "status"] + db, ["projections", "run"] + db, ["projections", "rebuild", "storage"] + db,
            ["import", folder.child("export.ndjson"), "--db", folder.child("imported")],
            ["demo"] + db, ["schema", "commands"], ["schema", "events"],
        ]
    }

    private func element(_ value: JSONValue?, _ index: Int) -> JSONValue? {
        guard case .array(let elements)? = value, index < elements.count else { return nil }
        return elements[index]
    }

    @Test func everyCommandThatPrintsAResultPrintsJSONLines() throws {
        let folder = TemporaryDirectory()
        let db = try setUp(folder)
        for arguments in commands(folder) + [["log", "--format", "json"] + db] {
            let json = arguments.contains("--format") ? arguments : arguments + ["--format", "json"]
            let result = try FlowLogProcess.run(json)
            #expect(result.status == 0, "\(json): \(result.stderr)")
            #expect(!result.stdout.isEmpty, "\(json)")
            for line in result.stdoutLines {
                #expect((try? JSONParser.parse(line)) != nil, "\(json): not JSON: \(line.prefix(120))")
            }
        }
        let demo = try FlowLogProcess.run(["demo", "--format", "json"] + db).stdoutLines.map { try JSONParser.parse($0) }
        #expect(demo.count == 19, "a line for each of the 18 steps and one for the end")
        #expect(demo[12]["answer"]?["error"]?["code"] == .string("cartNotOpen"))
        #expect(element(demo[0]["events"], 0)?["type"] == .string("app.launched"))
        #expect(demo.last?["stream"] == .string("demo-3"))
        #expect(element(demo.last?["state"]?["orders"], 0)?["orderId"] == .string("order-1"))
        let imported = try JSONParser.parse(
            try FlowLogProcess.run(["import", folder.child("export.ndjson"), "--db", folder.child("again"), "--format", "json"]).stdout)
        #expect(imported["imported"] == .integer(17))
    }

    @Test func noColourIsWrittenToAFileOrATerminalOrWithNoColor() throws {
        let folder = TemporaryDirectory()
        _ = try setUp(folder)
        for arguments in commands(folder) + [["log", "--db", folder.child("log")], ["help"], ["state", "--help"]] {
            for environment in [[:], ["NO_COLOR": "1"]] {
                let result = try FlowLogProcess.run(arguments, environment: environment)
                #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"), "\(arguments) \(environment)")
            }
        }
        // On a terminal (a pseudo-terminal from script(1)) too.
        for arguments in [["state", "--stream", "demo-1"], ["log"], ["streams"], ["demo"]] {
            let command = ([FlowLogProcess.executable.path] + arguments + ["--db", folder.child("log")]).joined(separator: " ")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", command, "/dev/null"]
            let out = folder.child("tty.out")
            #expect(FileManager.default.createFile(atPath: out, contents: nil))
            process.standardOutput = FileHandle(forWritingAtPath: out)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            let shown = try String(contentsOfFile: out, encoding: .utf8)
            #expect(process.terminationStatus == 0, "\(arguments)")
            #expect(shown.contains(arguments[0] == "demo" ? "FlowLog demo" : "demo-1"), "\(arguments): \(shown.prefix(200))")
            #expect(!shown.contains("\u{1B}"), "\(arguments) on a terminal")
        }
    }
}
