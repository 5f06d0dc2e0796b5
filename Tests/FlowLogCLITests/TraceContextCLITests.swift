import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

/// A command's W3C trace context kept with its events (log schema 5): from each place a command
/// names one, through export, CSV, import, copy and forget, on LMDB and PostgreSQL; the fixture of
/// the first build of schema 5; a log below it keeping none until `flowlog upgrade`.
@Suite("Trace context kept with the events")
struct TraceContextCLITests {
    private static let logs = FlowLogProcess.fixtures.appendingPathComponent("logs")
    private static let trace = "4bf92f3577b34da6a3ce929d0e0e4736"
    private static let traceparent = "00-\(trace)-00f067aa0ba902b7-01"

    private func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32 = 0) throws -> FlowLogProcess.Result {
        let result = try FlowLogProcess.run(arguments, stdin: stdin)
        #expect(result.status == status, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        return result
    }

    /// Each exported event's `traceparent` and `tracestate` (nil where absent), by stream and version.
    private func contexts(_ export: String) throws -> [String: (String?, String?)] {
        var found: [String: (String?, String?)] = [:]
        for line in export.split(separator: "\n") {
            let event = try JSONParser.parse(String(line))
            guard case .string(let stream)? = event["stream"], case .integer(let version)? = event["version"] else { continue }
            let traceparent: String? = if case .string(let text)? = event["traceparent"] { text } else { nil }
            let tracestate: String? = if case .string(let text)? = event["tracestate"] { text } else { nil }
            found["\(stream)/\(version)"] = (traceparent, tracestate)
        }
        return found
    }

    private func intact(_ db: String) throws -> Bool {
        try JSONParser.parse(try run(["verify", "--format", "json", "--db", db]).stdout)["intact"] == .bool(true)
    }

    @Test func theSchema5FixtureReadsAndItsContextsSurviveImportAndCopy() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        try FileManager.default.copyItem(atPath: Self.logs.appendingPathComponent("schema-5").path, toPath: db)
        let export = try String(contentsOf: Self.logs.appendingPathComponent("schema-5.ndjson"), encoding: .utf8)
        #expect(try run(["export", "--db", db]).stdout == export)
        let csv = try String(contentsOf: Self.logs.appendingPathComponent("schema-5.csv"), encoding: .utf8)
        #expect(try run(["export", "--format", "csv", "--db", db]).stdout == csv)
        #expect(try intact(db))
        _ = try run(["replay", "--verify", "--db", db])
        let kept = try contexts(export)
        #expect(kept["traced/1"]?.0 == Self.traceparent && kept["traced/1"]?.1 == "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
        #expect(kept["traced/3"]?.0 == nil && kept["plain/1"]?.0 == nil)

        let imported = scratch.child("imported")
        _ = try run(["import", Self.logs.appendingPathComponent("schema-5.ndjson").path, "--db", imported])
        #expect(try run(["export", "--db", imported]).stdout == export, "import keeps each context, and the forgotten event")
        let copied = scratch.child("copied")
        _ = try run(["copy", "--from", db, "--to", copied])
        #expect(try run(["export", "--db", copied]).stdout == export)
        #expect(try intact(imported) && intact(copied))
    }

    @Test func eachSourceOfAContextIsKeptAndAMalformedOneIsNot() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        let lines = [
            #"{"type":"app.launched","stream":"a","hasOnboarded":false,"meta":{"traceparent":"\#(Self.traceparent)","tracestate":"k=v"}}"#,
            #"{"type":"app.launched","stream":"b","hasOnboarded":false,"meta":{"traceparent":"00-\#(Self.trace.uppercased())-00f067aa0ba902b7-01"}}"#,
            #"{"type":"app.launched","stream":"c","hasOnboarded":false,"meta":{"traceparent":"\#(Self.traceparent)","tracestate":"caf\u00e9"}}"#,
        ]
        _ = try run(["send", "--db", db], stdin: lines.joined(separator: "\n") + "\n")
        let add = ["cart", "add", "--product", "p1", "--price", "1.00", "--stream", "d", "--db", db]
        _ = try run(add + ["--traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"])
        let refused = try run(add + ["--traceparent", "00-abc-01"], expecting: 64)
        #expect(refused.stderr.contains("--traceparent 00-abc-01 is not a W3C traceparent"), "\(refused.stderr)")
        let kept = try contexts(try run(["export", "--db", db]).stdout)
        #expect(kept.count == 4, "the refused command appended nothing: \(kept.keys.sorted())")
        #expect(kept["a/1"]?.0 == Self.traceparent && kept["a/1"]?.1 == "k=v")
        #expect(kept["d/1"]?.0 == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
        #expect(kept["b/1"]?.0 == nil, "an uppercase trace id is not W3C's: ignored, as a header would be")
        #expect(kept["c/1"]?.0 == Self.traceparent && kept["c/1"]?.1 == nil, "a tracestate outside printable ASCII is dropped")
        let csv = try run(["export", "--format", "csv", "--db", db]).stdout.split(separator: "\n")
        #expect(csv.first?.contains(",causation_id,trace_id,") == true)
        #expect(
            csv.filter { $0.contains(",\(Self.trace),") }.count == 2 && csv.filter { $0.contains(",0af7651916cd43dd8448eb211c80319c,") }.count == 1)
    }

    @Test func forgetErasesTheContextWithTheRestOfTheEvent() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        let line = #"{"type":"app.launched","stream":"gone","hasOnboarded":false,"meta":{"traceparent":"\#(Self.traceparent)","tracestate":"k=v"}}"#
        _ = try run(["send", "--db", db], stdin: line + "\n")
        _ = try run(["forget", "--stream", "gone", "--reason", "erasure request", "--db", db])
        let export = try run(["export", "--db", db]).stdout
        #expect(!export.contains(Self.trace) && !export.contains("tracestate"), "\(export)")
        #expect(try intact(db))
    }

    @Test func aLogBelowSchema5KeepsNoContextUntilUpgraded() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        try FileManager.default.copyItem(atPath: Self.logs.appendingPathComponent("schema-4").path, toPath: db)
        let line = #"{"type":"app.launched","stream":"new","hasOnboarded":false,"meta":{"traceparent":"\#(Self.traceparent)"}}"#
        _ = try run(["send", "--db", db], stdin: line + "\n")
        #expect(!(try run(["export", "--db", db]).stdout.contains(Self.trace)), "builds of schema 4 still read this log: no layout 4")
        let upgrade = try JSONParser.parse(try run(["upgrade", "--backup", scratch.child("backup"), "--format", "json", "--db", db]).stdout)
        #expect(upgrade["to"] == .integer(5), "\(upgrade)")
        let before = try run(["export", "--db", db]).stdout
        _ = try run(["send", "--db", db], stdin: line + "\n")
        let after = try run(["export", "--db", db]).stdout
        #expect(after.hasPrefix(before), "raising the schema to 5 rewrote nothing")
        #expect(try contexts(after)["new/2"]?.0 == Self.traceparent)
        #expect(try intact(db))
    }

    #if Network
        @Test func postgresKeepsTheContextInItsRecordsAndColumns() throws {
            let server = PostgresServer.shared
            let schema = server.freshName("traced")
            let db = server.url(schema: schema)
            let export = Self.logs.appendingPathComponent("schema-5.ndjson").path
            _ = try run(["import", export, "--db", db])
            #expect(try run(["export", "--db", db]).stdout == (try String(contentsOfFile: export, encoding: .utf8)))
            #expect(try server.psql("SELECT count(*) FROM \"\(schema)\".events WHERE traceparent IS NOT NULL") == "4")
            let line =
                #"{"type":"app.launched","stream":"sent","hasOnboarded":false,"meta":{"traceparent":"\#(Self.traceparent)","tracestate":"k=v"}}"#
            _ = try run(["send", "--db", db], stdin: line + "\n")
            #expect(
                try server.psql("SELECT traceparent || ' ' || tracestate FROM \"\(schema)\".events WHERE stream = 'sent'")
                    == "\(Self.traceparent) k=v")
            #expect(try intact(db))
            _ = try run(["forget", "--stream", "sent", "--reason", "erasure request", "--db", db])
            #expect(
                try server.psql("SELECT count(*) FROM \"\(schema)\".events WHERE stream IS NULL AND traceparent IS NULL AND tracestate IS NULL")
                    == "2")
            #expect(try intact(db))
            // A row whose column no longer matches its record is damage that verify names.
            _ = try server.psql("UPDATE \"\(schema)\".events SET traceparent = NULL WHERE position = 1")
            let damaged = try run(["verify", "--db", db], expecting: 65)
            #expect(damaged.stdout.contains("traceparent") || damaged.stderr.contains("traceparent"), "\(damaged.stdout)\(damaged.stderr)")
        }

        @Test func pushAndPullCarryTheContextBetweenADeviceAndTheServer() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            let line =
                #"{"type":"app.launched","stream":"phone-1","hasOnboarded":false,"meta":{"traceparent":"\#(Self.traceparent)","tracestate":"k=v"}}"#
            _ = try run(["send", "--db", device], stdin: line + "\n")
            let server = try ServedLog(arguments: ["--key-file", try PushPullCLITests.keyFile(in: folder)])
            _ = try run(["push", "--db", device, "--to", server.base])
            #expect(try contexts(try run(["export", "--db", server.db]).stdout)["phone-1/1"].map { [$0.0, $0.1] } == [Self.traceparent, "k=v"])
            let other = folder.child("other")
            _ = try run(["pull", "--stream", "phone-1", "--from", server.base, "--db", other])
            #expect(try run(["export", "--db", other]).stdout == (try run(["export", "--db", device]).stdout))
        }

        @Test func anOlderPostgresLogGainsTheColumnsWhenUpgraded() throws {
            let server = PostgresServer.shared
            let schema = server.freshName("kinds_v1")
            let fixture = FlowLogProcess.fixtures.appendingPathComponent("logs/kinds-v1/postgres.sql")
            let dump = try String(contentsOf: fixture, encoding: .utf8).replacingOccurrences(of: "kinds_v1", with: schema)
            #expect(try server.load(dump: dump), "psql could not load the dump")
            let db = server.url(schema: schema)
            let line = #"{"type":"app.launched","stream":"new","hasOnboarded":false,"meta":{"traceparent":"\#(Self.traceparent)"}}"#
            _ = try run(["send", "--db", db], stdin: line + "\n")
            let scratch = TemporaryDirectory()
            _ = try run(["upgrade", "--backup", scratch.child("backup.ndjson"), "--db", db])
            #expect(try server.psql("SELECT count(*) FROM \"\(schema)\".events WHERE traceparent IS NOT NULL") == "0")
            _ = try run(["send", "--db", db], stdin: line + "\n")
            #expect(try server.psql("SELECT traceparent FROM \"\(schema)\".events WHERE stream = 'new' AND version = 2") == Self.traceparent)
            #expect(try contexts(try run(["export", "--db", db]).stdout)["new/2"]?.0 == Self.traceparent)
            #expect(try intact(db))
        }
    #endif
}
