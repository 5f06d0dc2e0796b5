import FlowLogTesting
import Foundation
import Testing

/// `replay --file`, `bisect --file` and `replay --verify --file` read an export as a log's history:
/// positions that repeat or go backwards, or gaps in positions or stream versions, are refused with
/// exit 65 naming the first bad line, unless `--allow-gaps` says the gaps are known.
@Suite("the order of events in an NDJSON file")
struct ReplayFileOrderCLITests {
    private let bugs = FlowLogProcess.fixtures.appendingPathComponent("bugs")

    private func lines(_ name: String) throws -> [String] {
        try String(contentsOf: bugs.appendingPathComponent(name), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// Every command that reads a file, on `file`.
    private func readers(_ file: String) -> [[String]] {
        [
            ["replay", "--file", file],
            ["replay", "--file", file, "--stream", "session-4711", "--summary"],
            ["bisect", "--file", file, "--stream", "session-4711", "--invariant", "all"],
            ["replay", "--verify", "--file", file, "--expected", bugs.appendingPathComponent("stale-discount.expected.ndjson").path],
        ]
    }

    @Test(arguments: [
        ("duplicate", "Line 4 ", "position 3 again"),
        ("backwards", "Line 19 ", "goes back"),
        ("gap", "Line 5 ", "missing"),
        ("late-stream-start", "Line 1 ", "versions 1 through 2 of stream session-4711 are missing"),
    ])
    func aFileOutOfOrderIsRefusedNamingTheFirstBadLine(kind: String, line: String, words: String) throws {
        let folder = TemporaryDirectory()
        var events = try lines("coupon-over-100.ndjson")
        switch kind {
        case "duplicate": events.insert(events[2], at: 3)
        case "backwards": events.append(events[0])
        case "gap": events.remove(at: 4)
        default: events.removeFirst(2)
        }
        let file = folder.child("\(kind).ndjson")
        try (events.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        for arguments in readers(file) {
            let result = try FlowLogProcess.run(arguments + ["--db", folder.child("log")])
            #expect(result.status == 65, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.contains(line + "of \(file)"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
        let allowed = try FlowLogProcess.run(["replay", "--file", file, "--allow-gaps", "--summary"])
        if kind == "gap" || kind == "late-stream-start" {
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(allowed.stdout.contains("session-4711 v8"))
        } else {
            #expect(allowed.status == 65, "--allow-gaps allows gaps, not repeated or reordered events")
            #expect(allowed.stderr.contains(line))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.child("log")))
    }

    @Test func aContiguousFileAndAOneStreamExportAreRead() throws {
        let folder = TemporaryDirectory()
        let lastStream = try lines("coupon-over-100.ndjson").filter { $0.contains(#""stream":"session-0815""#) }
        let file = folder.child("one-stream.ndjson")
        try (lastStream.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let result = try FlowLogProcess.run(["replay", "--file", file, "--summary"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("replayed 10 events of 1 stream"))
        let whole = try FlowLogProcess.run(["replay", "--file", bugs.appendingPathComponent("coupon-over-100.ndjson").path, "--summary"])
        #expect(whole.status == 0, "\(whole.stderr)")
    }

    @Test func allowGapsGoesWithAFile() throws {
        let result = try FlowLogProcess.run(["replay", "--allow-gaps", "--db", TemporaryDirectory().child("log")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--allow-gaps goes with --file"))
    }
}
