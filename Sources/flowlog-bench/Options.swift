import Foundation

/// `flowlog-bench`'s options.
struct Options {
    var events = 1_000_000
    var commands = 100_000
    var runs = 5
    var work = ".build/bench-work"
    var flowlog = ".build/release/flowlog"
    var python = "/usr/bin/python3"
    var baselineScript = Options.repositoryFile("scripts/bench_baseline.py")
    var cases: Set<String> = ["send", "import", "replay", "export", "state", "longstream", "group", "postgres"]
    /// The `postgres` case: commands for `send`, and the Python (a venv with PyPI's eventsourcing and
    /// psycopg, which `scripts/bench` makes) that runs the peer.
    var postgresCommands = 200_000
    var peerPython = ".build-pyvenv/bin/python"
    var peerScript = Options.repositoryFile("scripts/bench_eventsourcing.py")
    /// With `--scale`, the sizes of the many-stream logs the scale cases build (events; one stream per 1,000).
    var scaleSizes: [Int] = []
    /// With `--sessions`, the numbers of sessions (streams of 1 to 40 events) of the many-sessions logs.
    var sessionSizes: [Int] = []
    /// With `--session-ids random`, the sessions are named by random ids (version-4 UUIDs, as apps
    /// name them) instead of `session-N`: new streams then fall anywhere among the log's keys.
    var randomSessionIds = false
    /// Where `--scale` writes its plot (default: WORK/scale.svg); the README shows docs/bench-scale.svg.
    var plot: String?
    /// With `--write-commands PATH`, only write `commands` commands of the workload (visits from
    /// `firstVisit` on, interleaved over `streams` streams) to PATH as NDJSON and stop: input for
    /// `flowlog send` when profiling it by hand.
    var writeCommands: String?
    var streams = 1_000
    var firstVisit = 0

    /// A file of the repository: `path` as given where it exists from the working folder (the
    /// repository's, as `scripts/bench` runs it), else beside the sources this bench was built
    /// from, so that a bench started from another folder still finds its Python baselines.
    static func repositoryFile(_ path: String, source: String = #filePath) -> String {
        if FileManager.default.fileExists(atPath: path) { return path }
        let root = URL(fileURLWithPath: source).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(path).path
    }

    /// What `--help` prints, and what follows an option error.
    static let usage = """
        usage: flowlog-bench [--events N] [--commands N] [--runs N] [--work DIR] [--flowlog PATH] [--python PATH]
                             [--cases a,b,…] [--pg-commands N] [--peer-python PATH]
                             [--scale N,N,… [--plot FILE]] [--sessions N,N,… [--session-ids random]]
                             [--write-commands FILE --streams S --first-visit V]
          cases: send, import, replay, export, state, longstream, group, postgres (the default); for profiling:
                 sendparts, replayonly, decodeonly; none (with --scale: only the scale table); sync (the whole
                 flowlog: `scripts/bench sync`): push (push of --commands' events over 1,000 sessions against
                 import), dispatch (10,000 commands, each durable, against single-put commits)
          --sessions: logs of that many sessions (1 to 40 events each, most short) and every command that walks
                 them, with time and peak anonymous memory; alone with `--cases none`; named
                 `session-N`, or with `--session-ids random` by random ids (version-4 UUIDs)
          Build it and flowlog in release first (`scripts/bench` does).
        """

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw BenchError("\(argument) needs a value") }
            /// A whole number above 0, or an error that names the option.
            func number(_ text: Substring) throws -> Int {
                guard let number = Int(text), number > 0 else { throw BenchError("\(argument) takes whole numbers above 0, not '\(text)'") }
                return number
            }
            switch argument {
            case "--events": events = try number(Substring(value))
            case "--commands": commands = try number(Substring(value))
            case "--runs": runs = try number(Substring(value))
            case "--work": work = value
            case "--flowlog": flowlog = value
            case "--python": python = value
            case "--pg-commands": postgresCommands = try number(Substring(value))
            case "--peer-python": peerPython = value
            case "--cases":
                cases = Set(value.split(separator: ",").map(String.init))
                let known: Set = [
                    "send", "import", "replay", "export", "state", "longstream", "group", "postgres",
                    "sendparts", "replayonly", "decodeonly", "none", "push", "dispatch",
                ]
                if let unknown = cases.subtracting(known).sorted().first { throw BenchError("--cases has no case '\(unknown)'") }
            case "--scale": scaleSizes = try value.split(separator: ",").map(number)
            case "--sessions": sessionSizes = try value.split(separator: ",").map(number)
            case "--session-ids":
                guard ["random", "sequential"].contains(value) else {
                    throw BenchError("--session-ids takes random or sequential, not '\(value)'")
                }
                randomSessionIds = value == "random"
            case "--plot": plot = value
            case "--write-commands": writeCommands = value
            case "--streams": streams = try number(Substring(value))
            case "--first-visit":
                guard let visit = Int(value), visit >= 0 else { throw BenchError("--first-visit takes a whole number, 0 or more, not '\(value)'") }
                firstVisit = visit
            default: throw BenchError("unknown option \(argument)")
            }
        }
    }
}
