import Deciding
import FlowLog
import FlowLogLMDB
import Foundation

// MARK: Scale: the commands users run, on logs of growing size with many interleaved sessions

/// One whole `flowlog` process: its wall time and the peaks of its resident set and of its
/// anonymous memory (`RssAnon`: the heap, what must stay bounded), sampled every 2 ms from
/// /proc/PID/status. File pages of the memory map count in the resident set but not here: the
/// kernel takes them back when it needs them.
struct ProcessMeasure {
    var seconds: Double
    var peakRSS: Int
    var peakAnon: Int
}

func measureProcess(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessMeasure {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    if let stdin { posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    let start = DispatchTime.now().uptimeNanoseconds
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))") }
    var peakRSS = 0
    var peakAnon = 0
    var status: Int32 = 0
    while true {
        let done = waitpid(pid, &status, WNOHANG)
        if done == pid { break }
        if let text = readProcFile("/proc/\(pid)/status") {
            for line in text.split(separator: "\n") {
                // "VmRSS:\t  123456 kB": a tab, then spaces.
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
                if fields[0] == "VmRSS:" { peakRSS = max(peakRSS, kilobytes) }
                if fields[0] == "RssAnon:" { peakAnon = max(peakAnon, kilobytes) }
            }
        }
        usleep(2_000)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let exitCode = (status >> 8) & 0xFF
    guard status & 0x7F == 0, exitCode == 0 || (arguments.first == "send" && exitCode == 1) else {
        throw BenchError("\(executable) \(arguments.joined(separator: " ")) ended with status \(status)")
    }
    return ProcessMeasure(seconds: seconds, peakRSS: peakRSS * 1024, peakAnon: peakAnon * 1024)
}

/// A file of /proc, read with plain reads: its size is 0 to `stat`, so whole-file readers see nothing.
func readProcFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    let count = read(descriptor, &bytes, bytes.count)
    return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : nil
}

/// The median of `runs` measurements, with the highest memory peaks seen.
func medianMeasure(runs: Int, _ body: () throws -> ProcessMeasure) rethrows -> ProcessMeasure {
    medianOf(try (0..<runs).map { _ in try body() })
}

/// The median time of `runs` (at least one), with the highest peaks any of them reached.
func medianOf(_ runs: [ProcessMeasure]) -> ProcessMeasure {
    ProcessMeasure(seconds: Timings(samples: runs.map(\.seconds)).median, peakRSS: runs.map(\.peakRSS).max()!, peakAnon: runs.map(\.peakAnon).max()!)
}

struct ScaleRow {
    let events: Int
    let streams: Int
    let command: String
    let work: Int
    let measure: ProcessMeasure
    /// The python3-lmdb cursor walk of the same log's event records, in the same run.
    let ceiling: Double?
    /// For `send` into the log: its rate against the empty log's, run by run (`Timings.pairedRatio`):
    /// a ratio of the two medians moves with the machine, and a run's two sends are seconds apart.
    let pairedRatio: Double?

    var rate: Double { Double(work) / measure.seconds }
}

/// Builds logs of each size (one stream per 1,000 events, visits interleaved across every
/// stream, through the pipeline as `send` leaves them), then runs the CLI's commands on each.
/// `finished` gets the rows so far after each size (a long run leaves its table and plot as it goes).
func runScale(_ options: Options, finished: ([ScaleRow]) throws -> Void = { _ in }) throws -> [ScaleRow] {
    var rows: [ScaleRow] = []
    for size in options.scaleSizes {
        let streams = max(1_000, size / 1_000)
        let workload = Workload(streams: streams)
        let path = options.work + "/scale-\(size).lmdb"
        try buildLog(at: path, events: size, workload: workload)
        let events = try LMDBEventLog(path: path, access: .readOnly).lastPosition()
        var ceilings = Timings()
        for _ in 0..<options.runs { ceilings.samples.append(try pythonBaseline(options, ["walk", path, "events"]).seconds) }
        let ceiling = Double(events) / ceilings.median
        log("scale \(size): ceiling \(Int(ceiling)) records/s")
        func add(_ command: String, work: Int, _ measure: ProcessMeasure, ceilinged: Bool = false, pairedRatio: Double? = nil) {
            rows.append(
                ScaleRow(
                    events: events, streams: streams, command: command, work: work, measure: measure,
                    ceiling: ceilinged ? ceiling : nil, pairedRatio: pairedRatio))
            log("  \(command): \(Int(Double(work) / measure.seconds))/s, RSS \(measure.peakRSS >> 20) MB, anon \(measure.peakAnon >> 20) MB")
        }
        add(
            "replay --summary", work: events,
            try medianMeasure(runs: options.runs) {
                try measureProcess(options.flowlog, ["replay", "--summary", "--db", path])
            }, ceilinged: true)
        add(
            "export", work: events,
            try medianMeasure(runs: options.runs) {
                try measureProcess(options.flowlog, ["export", "--db", path])
            }, ceilinged: true)
        add(
            "verify", work: events,
            try medianMeasure(runs: options.runs) {
                try measureProcess(options.flowlog, ["verify", "--db", path])
            }, ceilinged: true)
        // import: the log's own export into a new log (staged and committed in steps, so its
        // anonymous memory stays bounded whatever the log's size; decisions.md, Performance).
        let exported = options.work + "/scale-export.ndjson"
        try run(options.flowlog, ["export", "--db", path], stdout: exported)
        sync()
        add(
            "import", work: events,
            try medianMeasure(runs: min(options.runs, 3)) {
                let target = options.work + "/scale-import.lmdb"
                fresh(target)
                defer { fresh(target) }
                return try measureProcess(options.flowlog, ["import", exported, "--db", target])
            })
        fresh(exported)
        var positions = SplitMix64Bench(seed: 9)
        add(
            "state --at (random position)", work: 1,
            try medianMeasure(runs: max(options.runs, 11)) {
                let position = 1 + Int(positions.next() % UInt64(events))
                let stream = "session-\(Int(positions.next() % UInt64(streams)))"
                return try measureProcess(options.flowlog, ["state", "--db", path, "--stream", stream, "--at", "\(position)"])
            })
        // send: the next visits of the same sessions, 100,000 commands a run, into this log and into an empty one.
        let visitsSoFar = events / max(1, workload.commands(count: streams * 2).count / 2)
        var sends: [ProcessMeasure] = []
        var empties: [ProcessMeasure] = []
        for run in 0..<options.runs {
            var batch: [CommandEnvelope] = []
            var visit = visitsSoFar + run * 8 + 1
            while batch.count < options.commands {
                for stream in 0..<streams where batch.count < options.commands { batch += workload.visit(visit, stream: stream) }
                visit += 1
            }
            let input = options.work + "/scale-send.ndjson"
            try Data(batch.prefix(options.commands).map { WireCommand.encode($0) + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: input))
            sends.append(try sendIntoCopy(of: path, input: input, options))
            fresh(options.work + "/scale-empty.lmdb")
            empties.append(try measureProcess(options.flowlog, ["send", "--db", options.work + "/scale-empty.lmdb"], stdin: input))
        }
        let work = Double(options.commands)
        add(
            "send 100k commands", work: options.commands, medianOf(sends),
            pairedRatio: Timings(samples: sends.map(\.seconds)).pairedRatio(
                work: work, against: Timings(samples: empties.map(\.seconds)), otherWork: work))
        add("send 100k commands into an empty log", work: options.commands, medianOf(empties))
        // send, one command for each session in turn: a commit then names as many streams as it
        // holds commands (where a read of visits names about 1,000), each with pages of its own.
        let turns = options.work + "/scale-turns.ndjson"
        try Data(
            (0..<options.commands).map {
                #"{"type":"cart.addProduct","stream":"session-\#($0 % streams)","productId":"turn\#($0)","unitPrice":350,"quantity":1}"# + "\n"
            }.joined().utf8
        ).write(to: URL(fileURLWithPath: turns))
        add(
            "send 100k commands, one per session in turn", work: options.commands,
            try medianMeasure(runs: options.runs) {
                try sendIntoCopy(of: path, input: turns, options)
            })
        fresh(turns)
        try finished(rows)
    }
    return rows
}

/// `send` of `input` into a copy of the log at `path`: each run starts from the same log, and the
/// log stays for the next case and size. The copy is on disk before the clock starts.
func sendIntoCopy(of path: String, input: String, _ options: Options) throws -> ProcessMeasure {
    let copy = options.work + "/scale-send.lmdb"
    fresh(copy)
    defer { fresh(copy) }
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    sync()
    return try measureProcess(options.flowlog, ["send", "--db", copy], stdin: input)
}

/// A tiny seedable generator for the bench's random positions.
struct SplitMix64Bench {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The scale table, as the README shows it.
func renderScale(_ rows: [ScaleRow]) -> String {
    var lines = [
        "log | command | median | rate | python3-lmdb walk (same run) | ratio | peak RSS | peak anonymous memory",
        "---|---|---|---|---|---|---|---",
    ]
    for row in rows {
        let rate =
            row.rate >= 1e6
            ? String(format: "%.2fM/s", row.rate / 1e6)
            : row.rate >= 1e3 ? String(format: "%.0fk/s", row.rate / 1e3) : String(format: "%.0f/s", row.rate)
        let ceiling = row.ceiling.map { String(format: "%.2fM/s", $0 / 1e6) } ?? ""
        let ratio =
            row.ceiling.map { String(format: "%.2f×", row.rate / $0) }
            ?? row.pairedRatio.map { String(format: "%.2f× the empty log's, run by run", $0) } ?? ""
        lines.append(
            "\(row.events / 1_000_000)M events, \(row.streams) streams | \(row.command) | \(String(format: "%.1f ms", row.measure.seconds * 1000)) | \(rate) | \(ceiling) | \(ratio) | \(row.measure.peakRSS >> 20) MB | \(row.measure.peakAnon >> 20) MB"
        )
    }
    return lines.joined(separator: "\n")
}
