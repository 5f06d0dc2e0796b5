/// `flowlog-bench`'s options.
struct Options {
    var events = 1_000_000
    var commands = 100_000
    var runs = 5
    var work = ".build/bench-work"
    var flowlog = ".build/release/flowlog"
    var python = "/usr/bin/python3"
    var baselineScript = "scripts/bench_baseline.py"
    var cases: Set<String> = ["send", "import", "replay", "export", "state", "longstream", "group", "postgres"]
    /// The `postgres` case: commands for `send`, and the Python (a venv with PyPI's eventsourcing and
    /// psycopg, which `scripts/bench` makes) that runs the peer.
    var postgresCommands = 200_000
    var peerPython = ".build-pyvenv/bin/python"
    var peerScript = "scripts/bench_eventsourcing.py"
    /// With `--scale`, the sizes of the many-stream logs the scale cases build (events; one stream per 1,000).
    var scaleSizes: [Int] = []
    /// Where `--scale` writes its plot (default: WORK/scale.svg); the README shows docs/bench-scale.svg.
    var plot: String?
    /// With `--write-commands PATH`, only write `commands` commands of the workload (visits from
    /// `firstVisit` on, interleaved over `streams` streams) to PATH as NDJSON and stop: input for
    /// `flowlog send` when profiling it by hand.
    var writeCommands: String?
    var streams = 1_000
    var firstVisit = 0

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw BenchError("\(argument) needs a value") }
            switch argument {
            case "--events": events = Int(value)!
            case "--commands": commands = Int(value)!
            case "--runs": runs = Int(value)!
            case "--work": work = value
            case "--flowlog": flowlog = value
            case "--python": python = value
            case "--pg-commands": postgresCommands = Int(value)!
            case "--peer-python": peerPython = value
            case "--cases": cases = Set(value.split(separator: ",").map(String.init))
            case "--scale": scaleSizes = value.split(separator: ",").map { Int($0)! }
            case "--plot": plot = value
            case "--write-commands": writeCommands = value
            case "--streams": streams = Int(value)!
            case "--first-visit": firstVisit = Int(value)!
            default: throw BenchError("unknown option \(argument)")
            }
        }
    }
}
