import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `Fixtures/logs/kinds-v1`: a log, its exports and its PostgreSQL copy, written by the build before
/// event evolution, with every event kind at version 1. Every reader of today's build must answer on
/// them, with no word of damage, however the kinds have changed since: these tests state what must
/// hold for ever, so they pass unchanged after every later change to a kind (a new field adds a
/// member; it never changes or drops one the old build wrote).
@Suite("Logs written before event evolution", .serialized)
struct KindsV1FixtureTests {
    static let folder = FlowLogProcess.fixtures.appendingPathComponent("logs/kinds-v1")
    static func fixture(_ name: String) -> String { folder.appendingPathComponent(name).path }
    static let streams = ["cart", "demo", "env", "extra", "extra-nav", "nav"]
    static let eventCount = 64

    /// A copy of the fixture's log folder, so that no test writes into the fixture.
    static func copyOfLog(in directory: TemporaryDirectory) throws -> String {
        let path = directory.child("log")
        try FileManager.default.copyItem(atPath: fixture("log"), toPath: path)
        return path
    }

    static func run(_ arguments: [String], stdin: String? = nil) throws -> FlowLogProcess.Result {
        let result = try FlowLogProcess.run(arguments, stdin: stdin)
        #expect(result.status == 0, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        #expect(!result.stderr.lowercased().contains("damaged"), "\(arguments): \(result.stderr)")
        return result
    }

    /// Every reader of the log at `db`, each with its answer; each must exit 0.
    static func readAll(_ db: String, scratch: TemporaryDirectory) throws -> [String: String] {
        var answers: [String: String] = [:]
        let commands: [(String, [String])] = [
            ("export", ["export"]),
            ("export-csv", ["export", "--format", "csv"]),
            ("log", ["log", "--format", "json"]),
            ("log-text", ["log"]),
            ("streams", ["streams", "--format", "json"]),
            ("orders", ["orders", "--format", "json"]),
            ("summary", ["replay", "--summary", "--format", "json"]),
            ("trace", ["replay", "--trace", "--stream", "demo"]),
            ("replay", ["replay", "--stream", "cart"]),
            ("verify", ["verify", "--format", "json"]),
            ("replay-verify", ["replay", "--verify"]),
            ("bisect", ["bisect", "--stream", "demo", "--invariant", "all"]),
            ("snapshots", ["snapshots"]),
        ]
        for (name, arguments) in commands { answers[name] = try run(arguments + ["--db", db]).stdout }
        for stream in streams {
            answers["state \(stream)"] = try run(["state", "--stream", stream, "--format", "json", "--db", db]).stdout
            answers["view \(stream)"] = try run(["view", "--stream", stream, "--db", db]).stdout
        }
        for position in [1, 9, 30, 64] {
            answers["state demo --at \(position)"] = try run(["state", "--stream", "demo", "--at", String(position), "--format", "json", "--db", db])
                .stdout
        }
        return answers
    }

    /// Every member the old build wrote is still there with the same value; today's build may add
    /// members (`eventVersion`, fields added in later versions of a kind), never drop or change one.
    static func expectSuperset(_ new: JSONValue?, of old: JSONValue?, at path: String) {
        guard case .object(let oldMembers)? = old, case .object(let newMembers)? = new else {
            #expect(new == old, "\(path)")
            return
        }
        let newByName = Dictionary(newMembers, uniquingKeysWith: { $1 })
        for (name, value) in oldMembers { expectSuperset(newByName[name], of: value, at: path + "." + name) }
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test func everyReaderAnswersOnTheOldLMDBLog() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.copyOfLog(in: scratch)
        let answers = try Self.readAll(db, scratch: scratch)
        #expect(answers["replay-verify"] == "verified: 6 streams, 64 events, 64 recorded states compared, all agree\n")
        let verify = try JSONParser.parse(answers["verify"]!)
        #expect(verify["intact"] == .bool(true))
        // The old build's export, line by line: every member it wrote is there today, unchanged.
        let old = Self.lines(try String(contentsOfFile: Self.fixture("export.ndjson"), encoding: .utf8))
        let new = Self.lines(answers["export"]!)
        #expect(old.count == Self.eventCount && new.count == Self.eventCount)
        for (oldLine, newLine) in zip(old, new) {
            Self.expectSuperset(try JSONParser.parse(newLine), of: try JSONParser.parse(oldLine), at: oldLine.prefix(40).description)
        }
        // The old build's states, compared by replay --verify --expected: keys it did not know count as their defaults.
        let expected = try Self.run(["replay", "--verify", "--expected", Self.fixture("states.ndjson"), "--db", db])
        #expect(expected.stdout == "verified: 6 streams, 64 events, 6 recorded states compared, all agree\n")
    }

    @Test func theOldCSVExportsColumnsHoldTheSameValuesToday() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.copyOfLog(in: scratch)
        let old = CSVTable(try String(contentsOfFile: Self.fixture("export.csv"), encoding: .utf8))
        let new = CSVTable(try Self.run(["export", "--format", "csv", "--db", db]).stdout)
        #expect(old.rows.count == Self.eventCount && new.rows.count == Self.eventCount)
        for column in old.header {
            #expect(new.column(column) == old.column(column), "column \(column)")
        }
    }

    @Test func theOldExportImportsAndReplaysAsTheLogItCameFrom() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.copyOfLog(in: scratch)
        let imported = scratch.child("imported")
        _ = try Self.run(["import", Self.fixture("export.ndjson"), "--db", imported])
        let fromLog = try Self.run(["export", "--db", db]).stdout
        #expect(try Self.run(["export", "--db", imported]).stdout == fromLog)
        #expect(try Self.run(["verify", "--db", imported]).status == 0)
        // Today's export round-trips byte for byte.
        let again = scratch.child("again")
        _ = try Self.run(["import", "-", "--db", again], stdin: fromLog)
        #expect(try Self.run(["export", "--db", again]).stdout == fromLog)
        // replay --file of the old export gives the log's own summary.
        let summary = try Self.run(["replay", "--summary", "--format", "json", "--db", db]).stdout
        #expect(try Self.run(["replay", "--file", Self.fixture("export.ndjson"), "--summary", "--format", "json"]).stdout == summary)
    }

    @Test func copyBackupAndProjectionsReadTheOldLog() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.copyOfLog(in: scratch)
        let export = try Self.run(["export", "--db", db]).stdout
        _ = try Self.run(["copy", "--from", db, "--to", scratch.child("copy")])
        #expect(try Self.run(["export", "--db", scratch.child("copy")]).stdout == export)
        _ = try Self.run(["backup", "--to", scratch.child("backup"), "--db", db])
        #expect(try Self.run(["export", "--db", scratch.child("backup")]).stdout == export)
        _ = try Self.run(["projections", "run", "--tracker-dir", scratch.child("trackers"), "--db", db])
        let segment = try String(contentsOfFile: scratch.child("trackers/segment.ndjson"), encoding: .utf8)
        #expect(segment.contains("Product Added"))
        let orders = try Self.run(["orders", "--format", "json", "--db", db]).stdout
        #expect(Self.lines(orders).count == 4, "\(orders)")
        // And the old log takes new events.
        _ = try Self.run(["cart", "add", "--product", "p-new", "--price", "1.00", "--stream", "extra", "--db", db])
        #expect(try Self.run(["verify", "--db", db]).status == 0)
    }

    @Test func theOldLogsPostgreSQLCopyAnswersAsTheLMDBLogDoes() throws {
        let server = PostgresServer.shared
        let schema = server.freshName("kinds_v1")
        let dump = try String(contentsOfFile: Self.fixture("postgres.sql"), encoding: .utf8)
            .replacingOccurrences(of: "kinds_v1", with: schema)
        #expect(try server.load(dump: dump), "psql could not load the dump")
        let scratch = TemporaryDirectory()
        let lmdb = try Self.copyOfLog(in: scratch)
        let postgres = server.url(schema: schema)
        let fromPostgres = try Self.readAll(postgres, scratch: scratch)
        let fromLMDB = try Self.readAll(lmdb, scratch: scratch)
        for key in ["export", "export-csv", "log", "summary", "trace", "replay", "replay-verify", "bisect"] + Self.streams.map({ "state \($0)" }) {
            #expect(fromPostgres[key] == fromLMDB[key], "\(key)")
        }
        let verify = try JSONParser.parse(fromPostgres["verify"]!)
        #expect(verify["intact"] == .bool(true))
    }
}

/// Just enough CSV for the export's tables: quoted fields with doubled quotes, no line breaks inside.
struct CSVTable {
    let header: [String]
    let rows: [[String]]

    init(_ text: String) {
        let records = text.split(separator: "\n").map { Self.fields(String($0)) }
        header = records.first ?? []
        rows = Array(records.dropFirst())
    }

    func column(_ name: String) -> [String]? {
        guard let index = header.firstIndex(of: name) else { return nil }
        return rows.map { index < $0.count ? $0[index] : "" }
    }

    static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = Array(line).makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            current.append("\"")
                        } else {
                            quoted = false
                            pending = next
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
