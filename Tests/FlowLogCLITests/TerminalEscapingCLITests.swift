import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// Names, reasons, stream ids and paths that hold terminal controls (an ESC sequence that clears
/// the screen or sets the window title, a newline, a bidi override) are shown as visible escapes in
/// every text output and diagnostic; JSON output keeps them exactly.
@Suite("Text output escapes control and bidi characters")
struct TerminalEscapingCLITests {
    static let name = "Mug\u{1B}[2J\u{202E}gro.evil\nnext\u{7F}\u{85}\u{2066}"
    static let reason = "declined\u{1B}]0;pwned\u{07}\r\t\u{200F}"
    static let stream = "x\u{1B}[31m\u{202E}"

    /// The characters a terminal would act on; line feeds only where `lineFeeds` allows them (as line ends).
    static func rawControls(in text: String, lineFeeds: Bool = true) -> [String] {
        text.unicodeScalars.filter { scalar in
            if lineFeeds && scalar == "\n" { return false }
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }.map { String(format: "U+%04X", $0.value) }
    }

    static func expectEscaped(_ result: FlowLogProcess.Result, _ what: String, status: Int32 = 0) {
        #expect(result.status == status, "\(what): \(result.stderr)")
        #expect(rawControls(in: result.stdout).isEmpty, "\(what) stdout: \(rawControls(in: result.stdout))")
        #expect(rawControls(in: result.stderr).isEmpty, "\(what) stderr: \(rawControls(in: result.stderr))")
    }

    /// A log holding the hostile name and reason, written by `send`.
    static func sentLog(in folder: TemporaryDirectory) throws -> [String] {
        let db = ["--db", folder.child("sent")]
        let lines = [
            #"{"type":"cart.addProduct","stream":"h","productId":"p1","name":\#(JSONWriter.quoted(name)),"unitPrice":1250,"quantity":2}"#,
            #"{"type":"cart.checkout","stream":"h"}"#,
            #"{"type":"payment.failed","stream":"h","reason":\#(JSONWriter.quoted(reason))}"#,
        ]
        let sent = try FlowLogProcess.run(["send"] + db, stdin: lines.joined(separator: "\n") + "\n")
        #expect(sent.status == 0, "\(sent.stdout) \(sent.stderr)")
        return db
    }

    @Test func textOutputOfASentLogShowsEscapesAndJSONKeepsTheExactStrings() throws {
        let folder = TemporaryDirectory()
        let db = try Self.sentLog(in: folder)
        for arguments in [
            ["state", "--stream", "h"], ["log"], ["log", "--stream", "h"], ["replay"], ["replay", "--summary"],
            ["view", "--stream", "h"], ["view", "--stream", "h", "--at", "1"], ["verify"], ["orders"],
            ["bisect", "--stream", "h", "--run", "exit 1 # \u{1B}[2J\u{202E}"],
        ] {
            Self.expectEscaped(try FlowLogProcess.run(arguments + db), "\(arguments)")
        }
        let state = try FlowLogProcess.run(["state", "--stream", "h"] + db)
        #expect(state.stdout.contains(#"Mug\u{1B}[2J\u{202E}gro.evil\nnext\u{7F}\u{85}\u{2066}"#), "\(state.stdout)")
        let log = try FlowLogProcess.run(["log"] + db)
        #expect(log.stdout.contains(#"\u{200F}"#), "the reason's bidi mark, inside the table's JSON, is escaped too")

        let json = try JSONParser.parse(try FlowLogProcess.run(["state", "--stream", "h", "--format", "json"] + db).stdout)
        guard case .array(let items)? = json["cart"]?["items"] else {
            Issue.record("no items")
            return
        }
        #expect(items.first?["name"] == .string(Self.name))
        let events = try FlowLogProcess.run(["log", "--format", "json"] + db).stdoutLines.map { try JSONParser.parse($0) }
        #expect(events.first?["data"]?["name"] == .string(Self.name))
        #expect(events.last?["data"]?["reason"] == .string(Self.reason))
        let replayed = try FlowLogProcess.run(["replay", "--format", "json"] + db).stdoutLines.map { try JSONParser.parse($0) }
        #expect(replayed.last?["data"]?["reason"] == .string(Self.reason))
        let view = try JSONParser.parse(try FlowLogProcess.run(["view", "--stream", "h", "--format", "json"] + db).stdout)
        guard case .array(let rows)? = view["cart"]?["rows"] else {
            Issue.record("no rows")
            return
        }
        #expect(rows.first?["title"] == .string(Self.name))
    }

    @Test func anImportedLogIsShownEscapedToo() throws {
        let folder = TemporaryDirectory()
        let db = try Self.sentLog(in: folder)
        let export = try FlowLogProcess.run(["export"] + db)
        let file = folder.child("export.ndjson")
        try Data(export.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let imported = ["--db", folder.child("imported")]
        Self.expectEscaped(try FlowLogProcess.run(["import", file] + imported), "import")
        for arguments in [["state", "--stream", "h"], ["log"], ["replay"], ["view", "--stream", "h"]] {
            Self.expectEscaped(try FlowLogProcess.run(arguments + imported), "\(arguments) after import")
        }
        Self.expectEscaped(try FlowLogProcess.run(["replay", "--file", file]), "replay --file")
        #expect(try FlowLogProcess.run(["export"] + imported).stdout == export.stdout, "the strings round-trip exactly")
    }

    @Test func typedCommandsAndDiagnosticsEscapeWhatTheyEcho() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        Self.expectEscaped(
            try FlowLogProcess.run(["cart", "add", "--product", "p1", "--name", Self.name, "--price", "1", "--stream", "t"] + db), "cart add")
        let rejected = try FlowLogProcess.run(["cart", "checkout", "--stream", Self.stream] + db)
        Self.expectEscaped(rejected, "a rejected stream id", status: 1)
        #expect(rejected.stderr.contains(#"x\u{1B}[31m\u{202E}"#), "\(rejected.stderr)")
        let unknown = try FlowLogProcess.run(["state", "--stream", Self.stream] + db)
        Self.expectEscaped(unknown, "state of an unknown stream", status: 66)
        #expect(unknown.stderr.contains(#"x\u{1B}[31m\u{202E}"#), "\(unknown.stderr)")
        Self.expectEscaped(
            try FlowLogProcess.run(["bisect", "--stream", Self.stream, "--invariant", "all"] + db), "bisect of an unknown stream", status: 66)
        Self.expectEscaped(try FlowLogProcess.run(["export", "--type", Self.stream] + db), "export --type", status: 64)
        Self.expectEscaped(try FlowLogProcess.run(["cart", "add", "--product", "p1", "--price", Self.reason] + db), "a bad price", status: 64)
        Self.expectEscaped(
            try FlowLogProcess.run(["cart", "add", "--product", "p1", "--price", "1", "--\(Self.stream)"] + db), "an unknown option", status: 64)
        let rawFeed = try FlowLogProcess.run(["cart", "add", "--product", "p1", "--price", "1\n2"] + db)
        #expect(rawFeed.status == 64)
        #expect(rawFeed.stderr.contains(#"The value '1\n2' is invalid"#), "a line feed in a value is escaped: \(rawFeed.stderr)")
    }

    @Test func theDemoEscapesTheLogPathItPrints() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("demo\u{1B}[2J\u{202E}.lmdb")
        let demo = try FlowLogProcess.run(["demo", "--db", path])
        Self.expectEscaped(demo, "demo")
        #expect(demo.stdout.contains(#"demo\u{1B}[2J\u{202E}.lmdb"#))
        Self.expectEscaped(try FlowLogProcess.run(["projections", "status", "--db", path]), "projections status")
        Self.expectEscaped(try FlowLogProcess.run(["verify", "--db", folder.child("missing\u{1B}[2J")]), "a missing log", status: 66)
    }
}
