import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

/// `flowlog retain`: it forgets exactly the sessions its dry run lists, leaves every other one
/// byte for byte, works in whole batches that a second run completes after a kill, and refuses a
/// period without a unit.
@Suite("Retention", .serialized)
struct RetainCLITests {
    /// The log's sessions: its streams but the log's own (the erasure audit trail).
    static func sessions(of log: LMDBEventLog) throws -> [(stream: String, version: Int)] {
        try log.streams().filter { !SystemStreams.isReserved($0.stream) }
    }

    static func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        let result = try FlowLogProcess.run(arguments, stdin: stdin)
        #expect(result.status == status, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        return result
    }

    /// An export of `sessions`, each a stream with the ages (in days before now) of its events, in
    /// that order; the product names are the stream's own, so an export shows whose data is left.
    static func export(_ sessions: [(stream: String, ages: [Double])]) -> String {
        let now = Date().timeIntervalSince1970
        var lines: [String] = []
        for (stream, ages) in sessions {
            for (index, age) in ages.enumerated() {
                let position = lines.count + 1
                let time = Timestamp(microseconds: Int64((now - age * 86_400) * 1_000_000)).rfc3339
                let id = String(format: "0190%04x-0000-7000-8000-%012x", index, position)
                let (type, data) =
                    index == 0
                    ? ("app.launched", #"{"hasOnboarded":true}"#)
                    : ("cart.productAdded", #"{"productId":"p\#(index)","name":"Mug of \#(stream)","unitPrice":100,"quantity":1}"#)
                lines.append(
                    #"{"position":\#(position),"stream":"\#(stream)","version":\#(index + 1),"eventId":"\#(id)","type":"\#(type)","actor":"user","timestamp":"\#(time)","schemaVersion":1,"data":\#(data)}"#
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Old sessions (last event 200 days ago), young ones (1 day), and one begun 300 days ago but
    /// used yesterday, which is young: its last event counts.
    static func mixedLog(in scratch: TemporaryDirectory) throws -> (db: String, old: Set<String>, young: Set<String>) {
        let old = (0..<6).map { "old-\($0)" }
        let young = (0..<4).map { "young-\($0)" } + ["reused"]
        var sessions = old.map { (stream: $0, ages: [201.0, 200.5, 200]) }
        sessions += young.dropLast().map { (stream: $0, ages: [2.0, 1]) }
        sessions.append((stream: "reused", ages: [300, 299, 1]))
        let db = scratch.child("log")
        _ = try run(["import", "-", "--db", db], stdin: export(sessions))
        return (db, Set(old), Set(young))
    }

    @Test func theDryRunListsExactlyTheOldSessionsAndChangesNothing() throws {
        let scratch = TemporaryDirectory()
        let (db, old, _) = try Self.mixedLog(in: scratch)
        let before = try Data(contentsOf: URL(fileURLWithPath: db + "/data.mdb"))
        let exportBefore = try Self.run(["export", "--db", db]).stdout
        let listed = try Self.run(["retain", "--older-than", "90d", "--dry-run", "--db", db]).stdoutLines
        #expect(listed == old.sorted())
        let json = try Self.run(["retain", "--older-than", "90d", "--dry-run", "--format", "json", "--db", db]).stdoutLines
        #expect(try json.map { try JSONParser.parse($0)["stream"] } == old.sorted().map { Optional(JSONValue.string($0)) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: db + "/data.mdb")) == before)
        #expect(try Self.run(["export", "--db", db]).stdout == exportBefore)
        // Measured in hours, yesterday's sessions are old too.
        #expect(try Self.run(["retain", "--older-than", "12h", "--dry-run", "--db", db]).stdoutLines.count == 11)
    }

    @Test func retainForgetsWhatTheDryRunListedAndLeavesEveryOtherSessionAsItWas() throws {
        let scratch = TemporaryDirectory()
        let (db, old, young) = try Self.mixedLog(in: scratch)
        let youngExports = try young.sorted().map { try Self.run(["export", "--stream", $0, "--db", db]).stdout }
        let listed = Set(try Self.run(["retain", "--older-than", "90d", "--dry-run", "--db", db]).stdoutLines)

        let done = try Self.run(["retain", "--older-than", "90d", "--yes", "--format", "json", "--batch-size", "4", "--db", db])
        let summary = try JSONParser.parse(done.stdout)
        #expect(summary["sessions"] == .integer(6) && summary["events"] == .integer(18) && summary["batches"] == .integer(2))
        #expect(summary["complete"] == .bool(true))

        let left = Set(
            try Self.run(["streams", "--format", "json", "--db", db]).stdoutLines.map { line -> String in
                guard case .string(let stream)? = try JSONParser.parse(line)["stream"] else { return "" }
                return stream
            })
        #expect(listed == old && left == young && left.isDisjoint(with: listed))
        #expect(try young.sorted().map { try Self.run(["export", "--stream", $0, "--db", db]).stdout } == youngExports)
        let export = try Self.run(["export", "--db", db]).stdout
        for stream in old { #expect(!export.contains(stream), "\(stream) in the export") }
        let verify = try JSONParser.parse(try Self.run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(18))
        // Nothing is old any more: a second run forgets nothing.
        let again = try JSONParser.parse(try Self.run(["retain", "--older-than", "90d", "--yes", "--format", "json", "--db", db]).stdout)
        #expect(again["sessions"] == .integer(0))
    }

    @Test func aPeriodWithoutAUnitIsAUsageError() throws {
        let scratch = TemporaryDirectory()
        let (db, _, _) = try Self.mixedLog(in: scratch)
        for arguments in [["--older-than", "90", "--yes"], ["--older-than", "90m", "--yes"], ["--older-than", "0d"], ["--set", "90"]] {
            let refused = try Self.run(["retain"] + arguments + ["--db", db], expecting: 64)
            #expect(refused.stderr.contains("h (hours), d (days) or w (weeks)"), "\(arguments): \(refused.stderr)")
        }
        #expect(try Self.run(["retain", "--older-than", "90", "--db", db], expecting: 64).stderr.contains("did you mean 90d?"))
        #expect(try Self.run(["retain", "--older-than", "90d", "--dry-run", "--db", db]).stdoutLines.count == 6, "nothing was forgotten")
    }

    @Test func withoutATerminalRetainNeedsYes() throws {
        let scratch = TemporaryDirectory()
        let (db, _, _) = try Self.mixedLog(in: scratch)
        let refused = try Self.run(["retain", "--older-than", "90d", "--db", db], stdin: "y\n", expecting: 64)
        #expect(refused.stderr.contains("--yes"), "\(refused.stderr)")
        #expect(try Self.run(["retain", "--older-than", "90d", "--dry-run", "--db", db]).stdoutLines.count == 6)
    }

    @Test func aRetentionIsSetShownAndRemoved() throws {
        let scratch = TemporaryDirectory()
        let (db, _, _) = try Self.mixedLog(in: scratch)
        #expect(try Self.run(["retain", "--db", db]).stdout.contains("off"))
        _ = try Self.run(["retain", "--set", "90d", "--db", db])
        let shown = try JSONParser.parse(try Self.run(["retain", "--format", "json", "--db", db]).stdout)
        #expect(shown["retention"] == .string("90d"))
        _ = try Self.run(["retain", "--set", "off", "--db", db])
        #expect(try JSONParser.parse(try Self.run(["retain", "--format", "json", "--db", db]).stdout)["retention"] == .null)
        // Setting it changed no session.
        #expect(try Self.run(["streams", "--db", db]).stdoutLines.count == 1 + 11)
    }

    /// Many batches of one session each, killed once the first committed: every batch is whole
    /// (a forgotten session has lost all its events, a kept one none), the log verifies, and a
    /// second run forgets the rest.
    @Test func aKilledRetainLeavesWholeBatchesAndASecondRunFinishes() throws {
        let scratch = TemporaryDirectory()
        let old = (0..<2_000).map { String(format: "old-%04d", $0) }
        let db = scratch.child("log")
        _ = try Self.run(["import", "-", "--db", db], stdin: Self.export(old.map { ($0, [200, 200, 200]) } + [("young", [1])]))

        let process = Process()
        process.executableURL = FlowLogProcess.executable
        process.arguments = ["retain", "--older-than", "90d", "--yes", "--batch-size", "1", "--db", db]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = old.count + 1
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline {
            if let log = try? LMDBEventLog(path: db, access: .readOnly), let count = try? Self.sessions(of: log).count { seen = count }
            if seen < old.count + 1 { break }
            usleep(2_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the retain finished before it could be killed")

        let log = try LMDBEventLog(path: db, access: .readOnly)
        let left = try Self.sessions(of: log)
        // Each forgotten session has its audit event, each batch's committed with it.
        #expect(try log.events(inStream: SystemStreams.erasures).count == old.count + 1 - left.count)
        #expect(left.count < old.count + 1 && left.count > 1, "killed after its first batch, before its last: \(left.count) left")
        for (stream, version) in left { #expect(version == (stream == "young" ? 1 : 3)) }
        // The forgotten ones are the first in stream id order, each with all 3 of its events.
        let forgotten = old.count + 1 - left.count
        #expect(left.map(\.stream) == Array(old.dropFirst(forgotten)) + ["young"])
        let verify = try JSONParser.parse(try Self.run(["verify", "--format", "json", "--db", db]).stdout)
        #expect(verify["intact"] == .bool(true) && verify["forgotten"] == .integer(3 * forgotten))

        let rest = try JSONParser.parse(try Self.run(["retain", "--older-than", "90d", "--yes", "--format", "json", "--db", db]).stdout)
        #expect(rest["sessions"] == .integer(left.count - 1))
        #expect(try Self.sessions(of: LMDBEventLog(path: db, access: .readOnly)).map(\.stream) == ["young"])
    }
}
