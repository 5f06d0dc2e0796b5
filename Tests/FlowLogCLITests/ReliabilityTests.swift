import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

/// Starts `flowlog` with arguments, stdin from a file, stdout and stderr to files; returns the process.
private func spawn(_ arguments: [String], stdin: String, stdout: String, stderr: String, shell: String? = nil) throws -> Process {
    let process = Process()
    if let shell {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", shell + " exec \"$0\" \"$@\"", FlowLogProcess.executable.path] + arguments
    } else {
        process.executableURL = FlowLogProcess.executable
        process.arguments = arguments
    }
    #expect(FileManager.default.createFile(atPath: stdout, contents: nil))
    #expect(FileManager.default.createFile(atPath: stderr, contents: nil))
    process.standardInput = FileHandle(forReadingAtPath: stdin)
    process.standardOutput = FileHandle(forWritingAtPath: stdout)
    process.standardError = FileHandle(forWritingAtPath: stderr)
    try process.run()
    return process
}

private func answers(_ path: String) throws -> [JSONValue] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try JSONParser.parse(String($0)) }
}

@Suite("Reliability")
struct ReliabilityTests {
    @Test func fourProcessesAppendingAtOnceLoseNothingAndNeverFork() throws {
        let folder = TemporaryDirectory()
        let db = folder.child("log")
        _ = try FlowLogProcess.run(["system", "app-launched", "--has-onboarded", "--stream", "race", "--db", db])
        var processes: [Process] = []
        for writer in 0..<4 {
            var lines: [String] = []
            for index in 0..<1_500 {
                let stream = index % 3 == 0 ? "shared" : "writer-\(writer)"
                lines.append(#"{"type":"cart.addProduct","stream":"\#(stream)","productId":"p\#(index % 40)","unitPrice":100,"quantity":1}"#)
                if index < 300 {
                    // Every writer claims versions 2…301 of "race": exactly one may win each.
                    lines.append(#"{"type":"home.selectTab","stream":"race","tab":\#(index % 2),"expectedVersion":\#(index + 1)}"#)
                }
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: folder.child("in-\(writer)"), atomically: true, encoding: .utf8)
        }
        // An export reading while the writers write.
        for writer in 0..<4 {
            processes.append(
                try spawn(
                    ["send", "--db", db], stdin: folder.child("in-\(writer)"), stdout: folder.child("out-\(writer)"),
                    stderr: folder.child("err-\(writer)")))
        }
        Thread.sleep(forTimeInterval: 0.05)
        let export = try FlowLogProcess.run(["export", "--db", db])
        for process in processes { process.waitUntilExit() }

        var acknowledged: [Int: String] = [:]
        var raceVersions: [Int] = []
        for writer in 0..<4 {
            for answer in try answers(folder.child("out-\(writer)")) {
                guard case .string(let stream)? = answer["stream"] else {
                    Issue.record("answer without stream")
                    continue
                }
                if answer["ok"] == .bool(true) {
                    guard case .array(let positions)? = answer["positions"] else { continue }
                    for case .integer(let position) in positions {
                        #expect(acknowledged[position] == nil, "position \(position) acknowledged twice")
                        acknowledged[position] = stream
                    }
                    if stream == "race", case .integer(let version)? = answer["version"] { raceVersions.append(version) }
                } else {
                    #expect(stream == "race", "only the racing writers may be refused")
                    #expect(answer["error"]?["code"] == .string("versionConflict"))
                }
            }
        }
        let log = try LMDBEventLog(path: db, access: .readOnly)
        #expect(try log.checkIntegrity().isIntact)
        let events = try log.events()
        #expect(events.count == acknowledged.count + 1, "every event was acknowledged, and only those")
        for event in events where event.position > 1 { #expect(acknowledged[event.position] == event.stream) }
        #expect(Set(raceVersions).count == raceVersions.count, "no version of the raced stream was won twice")
        #expect(Set(raceVersions) == Set(2...301), "every claimed version was won by exactly one writer")
        #expect(try log.version(of: "race") == 301)

        // The concurrent export is one consistent snapshot: positions 1…n, each stream's versions 1…v.
        var versions: [String: Int] = [:]
        for (index, line) in export.stdoutLines.enumerated() {
            let event = try JSONParser.parse(line)
            #expect(event["position"] == .integer(index + 1))
            guard case .string(let stream)? = event["stream"], case .integer(let version)? = event["version"] else { continue }
            #expect(version == versions[stream, default: 0] + 1)
            versions[stream] = version
        }
    }

    @Test func aFullDiskStopsSendWithASentenceAndKeepsEveryAcknowledgedEvent() throws {
        let folder = TemporaryDirectory()
        let db = folder.child("log")
        let name = String(repeating: "n", count: 180)
        let lines = (0..<120_000).map {
            #"{"type":"cart.addProduct","stream":"s\#($0 % 90)","productId":"p\#($0 % 90)","name":"\#(name)","unitPrice":1,"quantity":1}"#
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: folder.child("in"), atomically: true, encoding: .utf8)
        // A file-size limit (a few MiB, well below the ~40 MiB the lines need) stands in for a full disk:
        // writes past it fail with EFBIG.
        let process = try spawn(
            ["send", "--db", db], stdin: folder.child("in"), stdout: folder.child("out"), stderr: folder.child("err"),
            shell: "ulimit -f 16384; trap '' XFSZ;")
        process.waitUntilExit()
        #expect(process.terminationStatus == 74)
        let stderr = try String(contentsOfFile: folder.child("err"), encoding: .utf8)
        #expect(stderr.contains("is full"), "\(stderr)")
        let acknowledged = try answers(folder.child("out")).filter { $0["ok"] == .bool(true) }.count
        #expect(acknowledged > 0 && acknowledged < lines.count)
        let log = try LMDBEventLog(path: db, access: .readOnly)
        #expect(try log.lastPosition() == acknowledged, "exactly the acknowledged events are in the log")
        #expect(try log.checkIntegrity().isIntact)
    }

    @Test func aKilledImportCommitsNothing() throws {
        let folder = TemporaryDirectory()
        var rng = SplitMix64(seed: 8)
        let generator = RandomCommands()
        let commands = (0..<60_000).map { index in
            WireCommand.encode(CommandEnvelope(stream: "s\(index % 50)", command: generator.command(using: &rng)))
        }
        _ = try FlowLogProcess.run(["send", "--db", folder.child("source")], stdin: commands.joined(separator: "\n") + "\n")
        _ = try FlowLogProcess.run(["export", "--db", folder.child("source"), "-o", folder.child("export.ndjson")])
        _ = try FlowLogProcess.run(["system", "app-launched", "--db", folder.child("target")])
        #expect(FileManager.default.createFile(atPath: folder.child("empty"), contents: nil))
        let firstLine = try String(contentsOfFile: folder.child("export.ndjson"), encoding: .utf8).prefix { $0 != "\n" }
        #expect(firstLine.contains("\"position\":1"))
        // Renumber the export to follow the target's one event, then import it and kill the import midway.
        let shifted = try String(contentsOfFile: folder.child("export.ndjson"), encoding: .utf8).split(separator: "\n").map { line in
            var event = try JSONParser.parse(String(line))
            guard case .object(var members) = event, case .integer(let position)? = event["position"] else { return String(line) }
            members = members.map { $0.0 == "position" ? ($0.0, .integer(position + 1)) : $0 }
            event = .object(members)
            var json = JSONWriter()
            json.value(event)
            return json.text
        }
        try (shifted.joined(separator: "\n") + "\n").write(toFile: folder.child("shifted.ndjson"), atomically: true, encoding: .utf8)
        let process = try spawn(
            ["import", folder.child("shifted.ndjson"), "--db", folder.child("target")], stdin: folder.child("empty"),
            stdout: folder.child("out"), stderr: folder.child("err"))
        Thread.sleep(forTimeInterval: 0.08)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let log = try LMDBEventLog(path: folder.child("target"), access: .readOnly)
        let count = try log.lastPosition()
        #expect(count == 1 || count == shifted.count + 1, "all or nothing, never part: \(count)")
        #expect(try log.checkIntegrity().isIntact)
    }

    @Test func aLogWrittenBySchemaOneStaysReadable() throws {
        let folder = TemporaryDirectory()
        let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs")
        try FileManager.default.copyItem(atPath: fixture.appendingPathComponent("schema-1").path, toPath: folder.child("log"))
        let export = try FlowLogProcess.run(["export", "--db", folder.child("log")])
        #expect(export.status == 0, "\(export.stderr)")
        // Every member the old export holds is there today, unchanged (kinds may have gained fields since).
        let old = try String(contentsOf: fixture.appendingPathComponent("schema-1.ndjson"), encoding: .utf8).split(separator: "\n")
        let new = export.stdout.split(separator: "\n")
        #expect(old.count == new.count)
        for (oldLine, newLine) in zip(old, new) {
            KindsV1FixtureTests.expectSuperset(
                try JSONParser.parse(String(newLine)), of: try JSONParser.parse(String(oldLine)), at: String(oldLine.prefix(40)))
        }
        // Its states as that build printed them, compared with keys it did not know as their defaults.
        let states = try FlowLogProcess.run([
            "replay", "--verify", "--expected", fixture.appendingPathComponent("schema-1.states.ndjson").path,
            "--db", folder.child("log"),
        ])
        #expect(states.stdout == "verified: 4 streams, 51 events, 4 recorded states compared, all agree\n", "\(states.stdout)")
        let verify = try FlowLogProcess.run(["verify", "--db", folder.child("log")])
        #expect(verify.status == 0, "\(verify.stdout)")
        let replay = try FlowLogProcess.run(["replay", "--verify", "--db", folder.child("log")])
        #expect(replay.status == 0, "\(replay.stdout)")
        // Its fingerprints are in its stream-index values (it predates the fingerprints database).
        #expect(replay.stdout == "verified: 4 streams, 51 events, 51 recorded states compared, all agree\n")
        // And it still takes new events.
        let added = try FlowLogProcess.run(["cart", "checkout", "--stream", "nav", "--db", folder.child("log")])
        #expect(added.status == 1, "the nav stream's cart is empty: a rejection, with the log still writable")
        #expect(added.stderr.contains("emptyCart"))
    }

    @Test func verifyFromTheCommandLineNamesADamagedRecord() throws {
        let folder = TemporaryDirectory()
        let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs/schema-1")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: folder.child("log"))
        // Flip one byte inside the name "Sticker pack" of the demo's third product.
        var data = try Data(contentsOf: URL(fileURLWithPath: folder.child("log/data.mdb")))
        let needle = Data("Sticker pack".utf8)
        guard let range = data.range(of: needle) else {
            Issue.record("fixture without the name")
            return
        }
        data[range.lowerBound] ^= 0x20
        try data.write(to: URL(fileURLWithPath: folder.child("log/data.mdb")))
        let result = try FlowLogProcess.run(["verify", "--db", folder.child("log"), "--format", "json"])
        #expect(result.status == 65)
        let report = try JSONParser.parse(result.stdout)
        #expect(report["intact"] == .bool(false))
        #expect(report["problems"]?["stream"] == nil)
        guard case .array(let problems)? = report["problems"], let first = problems.first else {
            Issue.record("no problems")
            return
        }
        #expect(first["position"] == .integer(8))
        #expect(first["stream"] == .string("demo"))
        let state = try FlowLogProcess.run(["state", "--db", folder.child("log"), "--stream", "demo"])
        #expect(state.status == 65, "reads stop at the damage rather than skip it")
        #expect(state.stderr.contains("position 8"))
    }
}
