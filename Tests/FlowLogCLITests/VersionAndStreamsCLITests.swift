import FlowLogBasics
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

/// `flowlog --version`, the shell completion scripts the README documents, and `flowlog streams`.
@Suite("version, completions and streams")
struct VersionAndStreamsCLITests {
    @Test func versionNamesTheReleaseAndTheLogSchemaItWrites() throws {
        let result = try FlowLogProcess.run(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout.range(of: #"^flowlog \d+\.\d+\.\d+ \(writes log schema \d+\)\n$"#, options: .regularExpression) != nil, "\(result.stdout)")
        #expect(result.stdout.contains("log schema \(LMDBEventLog.logSchemaVersion))"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsAreGeneratedAndDocumented(shell: String) throws {
        let result = try FlowLogProcess.run(["--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["streams", "backup", "cart", "export"] { #expect(result.stdout.contains(name), "\(shell): \(name)") }
        let guide = try String(contentsOf: FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("docs/cli.md"), encoding: .utf8)
        #expect(guide.contains("flowlog --generate-completion-script \(shell)"))
        if shell == "bash" {
            // The script is written as it is, byte for byte: escaping it for a terminal would break it.
            let folder = TemporaryDirectory()
            try result.stdout.write(toFile: folder.child("flowlog.bash"), atomically: true, encoding: .utf8)
            let check = Process()
            check.executableURL = URL(fileURLWithPath: "/bin/bash")
            check.arguments = ["-n", folder.child("flowlog.bash")]
            try check.run()
            check.waitUntilExit()
            #expect(check.terminationStatus == 0, "bash -n accepts the script")
        }
    }

    @Test func streamsListsEachStreamWithItsVersionPositionsAndLastTime() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let empty = try FlowLogProcess.run(["system", "app-launched", "--has-onboarded", "--stream", "first"] + db)
        #expect(empty.status == 0)
        _ = try FlowLogProcess.run(["demo"] + db)
        _ = try FlowLogProcess.run(["home", "select-tab", "--tab", "1", "--stream", "first"] + db)
        let events = try FlowLogProcess.run(["log", "--format", "json"] + db).stdoutLines.map { try JSONParser.parse($0) }
        func time(_ position: Int) -> JSONValue? { events[position - 1]["timestamp"] }
        let json = try FlowLogProcess.run(["streams", "--format", "json"] + db)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdoutLines.count == 2)
        let demo = try JSONParser.parse(json.stdoutLines[0])
        #expect(demo["stream"] == .string("demo-1"))
        #expect(demo["version"] == .integer(17))
        #expect(demo["firstPosition"] == .integer(2))
        #expect(demo["lastPosition"] == .integer(18))
        #expect(demo["lastTimestamp"] == time(18))
        let first = try JSONParser.parse(json.stdoutLines[1])
        #expect(first["stream"] == .string("first"))
        #expect(first["version"] == .integer(2))
        #expect(first["firstPosition"] == .integer(1))
        #expect(first["lastPosition"] == .integer(19))
        #expect(first["lastTimestamp"] == time(19))
        let text = try FlowLogProcess.run(["streams"] + db)
        #expect(text.status == 0)
        #expect(text.stdoutLines.first == "STREAM  VERSION  FIRST  LAST  LAST EVENT")
        #expect(text.stdoutLines.count == 3)
        #expect(text.stdoutLines[1].hasPrefix("demo-1       17      2    18  "))
        guard case .string(let last)? = time(19) else {
            Issue.record("no time")
            return
        }
        #expect(text.stdoutLines[2] == "first         2      1    19  \(last)")
        let none = try FlowLogProcess.run(["streams", "--db", folder.child("missing")])
        #expect(none.status == 66)
    }
}
