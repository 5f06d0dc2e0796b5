import FlowLogTesting
import Foundation
import Testing

/// Every ```console block of the README and of each `docs/*.md` page runs as printed. Each `##`
/// section of each file starts in an empty folder (so `./flowlog.lmdb` is a fresh log) holding a
/// link to `Fixtures`, with the built `flowlog` first on the PATH; its blocks' commands (`$ ` lines,
/// with heredocs and lines ending in `\` continued) run in order with bash, and what each prints
/// (standard output and error, as a terminal shows them) must be the block's text below it, modulo
/// event ids and times. In the expected text a line of `…` stands for any number of lines and `…`
/// inside a line for any text; blank lines at the end are not compared.
/// Blocks that need what a test cannot have (a real collector, a running server, a PostgreSQL URL,
/// a shell's completion folder) use another fence, such as ```sh, and are not run.
@Suite("README examples")
struct ReadmeExamplesTests {
    struct Example {
        let command: String
        let expected: [String]
    }

    struct Section: CustomTestStringConvertible {
        let title: String
        let examples: [Example]
        var testDescription: String { title }
    }

    static let root = FlowLogProcess.fixtures.deletingLastPathComponent()
    static let readme = root.appendingPathComponent("README.md")

    /// The README, then every `docs/*.md` page in name order.
    static func pages() throws -> [URL] {
        let docs = root.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
        return [readme] + pages
    }

    /// The sections of every page: the README's by their titles, a docs page's as `docs/NAME.md: title`.
    static func sections() throws -> [Section] {
        try pages().flatMap { page in
            let prefix = page == readme ? "" : "docs/\(page.lastPathComponent): "
            return try sections(of: String(contentsOf: page, encoding: .utf8), titlePrefix: prefix)
        }
    }

    static func sections(of text: String, titlePrefix: String = "") -> [Section] {
        let lines = text.components(separatedBy: "\n")
        var sections: [Section] = []
        var title = titlePrefix + "(top)"
        var examples: [Example] = []
        var index = 0
        func close() {
            if !examples.isEmpty { sections.append(Section(title: title, examples: examples)) }
            examples = []
        }
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.hasPrefix("## ") {
                close()
                title = titlePrefix + String(line.dropFirst(3))
                continue
            }
            guard line == "```console" else { continue }
            var block: [String] = []
            while index < lines.count, lines[index] != "```" {
                block.append(lines[index])
                index += 1
            }
            index += 1
            examples += parse(block)
        }
        close()
        return sections
    }

    /// `$ ` lines are commands (continued by a trailing `\` or through a heredoc's end); the lines
    /// up to the next command are what it prints.
    static func parse(_ block: [String]) -> [Example] {
        var examples: [Example] = []
        var index = 0
        while index < block.count {
            guard block[index].hasPrefix("$ ") else {
                index += 1
                continue
            }
            var command = String(block[index].dropFirst(2))
            index += 1
            while command.hasSuffix("\\"), index < block.count {
                command += "\n" + block[index]
                index += 1
            }
            if let range = command.range(of: #"<<-?'?([A-Za-z_]+)'?"#, options: .regularExpression) {
                let terminator = command[range].trimmingCharacters(in: CharacterSet(charactersIn: "<-'"))
                while index < block.count {
                    command += "\n" + block[index]
                    index += 1
                    if block[index - 1] == terminator { break }
                }
            }
            var expected: [String] = []
            while index < block.count, !block[index].hasPrefix("$ ") {
                expected.append(block[index])
                index += 1
            }
            examples.append(Example(command: command, expected: expected))
        }
        return examples
    }

    /// Event ids, times and microsecond timestamps as placeholders.
    static func normalized(_ line: String) -> String {
        var line = line
        for (pattern, placeholder) in [
            (#"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, "<id>"),
            (#"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z"#, "<time>"), (#"\b\d{16}\b"#, "<micros>"),
        ] {
            line = line.replacingOccurrences(of: pattern, with: placeholder, options: .regularExpression)
        }
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }

    /// Whether `actual` is `expected`, where a line of `…` is any number of lines and `…` in a line any text.
    static func matches(_ expected: [String], _ actual: [String]) -> Bool {
        let patterns = expected.map { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "…" { return nil }
            return "^" + normalized(line).components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:)).joined(separator: ".*") + "$"
        }
        // reachable[i][j]: the first i patterns match the first j lines.
        var reachable = Array(repeating: Array(repeating: false, count: actual.count + 1), count: patterns.count + 1)
        reachable[0][0] = true
        for i in 0..<patterns.count {
            for j in 0...actual.count where reachable[i][j] {
                if let pattern = patterns[i] {
                    if j < actual.count, normalized(actual[j]).range(of: pattern, options: .regularExpression) != nil {
                        reachable[i + 1][j + 1] = true
                    }
                } else {
                    for k in j...actual.count { reachable[i + 1][k] = true }
                }
            }
        }
        return reachable[patterns.count][actual.count]
    }

    @Test func theReadmeHasExamplesInEverySectionThatShowsTheCommandLine() throws {
        let titles = try Self.sections().map(\.title)
        for title in [
            "A tour of the command line", "Reproduce a bug from a user's log", "For analysts: exports that load straight into DuckDB and pandas",
            "Projections: read models, analytics and views, driven by the log",
        ] {
            #expect(titles.contains(title), "\(titles)")
        }
        // The docs pages' examples run too, each section in a folder of its own.
        for title in ["docs/cli.md: The demo", "docs/analytics.md: Running the trackers"] {
            #expect(titles.contains(title), "\(titles)")
        }
    }

    @Test(arguments: try ReadmeExamplesTests.sections())
    func everyConsoleExampleRunsAsPrinted(section: Section) throws {
        let folder = TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: folder.child("Fixtures"), withDestinationPath: FlowLogProcess.fixtures.path)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "FLOWLOG_DB")
        environment["PATH"] = FlowLogProcess.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for example in section.examples {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "{ " + example.command + "\n} 2>&1"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
            process.environment = environment
            let out = folder.child(".readme-output")
            #expect(FileManager.default.createFile(atPath: out, contents: nil))
            let handle = FileHandle(forWritingAtPath: out)!
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try handle.close()
            // Blank lines at the end are not compared (a block cannot show them).
            var actual = try String(contentsOfFile: out, encoding: .utf8).components(separatedBy: "\n")
            while actual.last?.isEmpty == true { actual.removeLast() }
            var expected = example.expected
            while expected.last?.isEmpty == true { expected.removeLast() }
            #expect(
                Self.matches(expected, actual),
                """
                \(section.title): $ \(example.command)
                --- expected
                \(example.expected.joined(separator: "\n"))
                --- actual
                \(actual.joined(separator: "\n"))
                """)
        }
    }
}
