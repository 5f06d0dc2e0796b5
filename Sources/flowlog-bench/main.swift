import Deciding
import FlowLog
import FlowLogBasics
import FlowLogHistory
import FlowLogLMDB
import FlowLogMemory
import FlowLogStore
import Foundation
import LMDB

// flowlog-bench: FlowLog's full paths against baselines measured in the same run (`Options.usage`).

/// The NDJSON envelope as a Codable type, for the JSONDecoder baseline.
struct CodableEvent: Codable {
    struct Data: Codable {
        var productId: String?, name: String?, unitPrice: Int?, quantity: Int?, discountId: String?, percent: Int?
        var orderId: String?, total: Int?, itemCount: Int?, reason: String?, hasOnboarded: Bool?, tab: Int?
    }
    var position: Int, stream: String, version: Int, eventId: String, type: String, actor: String
    var timestamp: String, schemaVersion: Int, correlationId: String?, causationId: String?, data: Data
}

func log(_ message: String) { FileHandle.standardError.write(Data((message + "\n").utf8)) }

func fresh(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

func pythonBaseline(_ options: Options, _ arguments: [String]) throws -> (seconds: Double, records: Double) {
    let output = try run(options.python, [options.baselineScript] + arguments)
    guard case .object = try JSONParser.parse(output), case .number(let seconds)? = try JSONParser.parse(output)["seconds"],
        case .integer(let records)? = try JSONParser.parse(output)["records"]
    else { throw BenchError("baseline said \(output)") }
    return (seconds, Double(records))
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(Options.usage)
    exit(0)
}
let options: Options
do {
    options = try Options(arguments)
} catch {
    log("flowlog-bench: \(error)\n\(Options.usage)")
    exit(64)
}
if let path = options.writeCommands {
    let workload = Workload(streams: options.streams)
    var lines = ""
    var count = 0
    var visit = options.firstVisit
    while count < options.commands {
        for stream in 0..<options.streams where count < options.commands {
            for command in workload.visit(visit, stream: stream).prefix(options.commands - count) {
                lines += WireCommand.encode(command) + "\n"
                count += 1
            }
        }
        visit += 1
    }
    try Data(lines.utf8).write(to: URL(fileURLWithPath: path))
    exit(0)
}
try FileManager.default.createDirectory(atPath: options.work, withIntermediateDirectories: true)
let work = options.work
var report = Report()

if !options.sessionSizes.isEmpty {
    let rows = try runSessions(options) { rows in
        let table = renderSessions(rows, randomIds: options.randomSessionIds)
        try Data((table + "\n").utf8).write(to: URL(fileURLWithPath: options.work + "/sessions.md"))
    }
    print(renderSessions(rows, randomIds: options.randomSessionIds))
    // The many-sessions table alone needs no other log.
    if options.cases == ["none"], options.scaleSizes.isEmpty { exit(0) }
}

// MARK: Data: a log of `events` events made by the pipeline, and its NDJSON export.

let sourcePath = work + "/source.lmdb"
let exportPath = work + "/source.ndjson"
let commandsPath = work + "/commands.ndjson"
let workload = Workload(streams: 1_000)
if (try? LMDBEventLog(path: sourcePath, access: .readOnly).lastPosition()) != options.events {
    log("making a log of \(options.events) events…")
    fresh(sourcePath)
    let source = try LMDBEventLog(path: sourcePath)
    let processor = CommandProcessor(log: source)
    let commands = workload.commands(count: options.events)
    for start in stride(from: 0, to: commands.count, by: 10_000) {
        _ = try processor.handle(Array(commands[start..<min(start + 10_000, commands.count)]))
    }
    let output = FileHandle(
        forWritingAtPath: {
            _ = FileManager.default.createFile(atPath: exportPath, contents: nil)
            return exportPath
        }())!
    final class FileOutput: OutputSink {
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
        func write(_ bytes: [UInt8]) throws { try handle.write(contentsOf: bytes) }
    }
    try EventExport(format: .ndjson).run(from: source, to: FileOutput(output))
    try output.close()
}
let eventCount = try LMDBEventLog(path: sourcePath, access: .readOnly).lastPosition()
log("log: \(eventCount) events")

// MARK: send

let pythonPutsBaseline = "python3-lmdb puts of the same lines, 1,000 per commit"

/// `flowlog COMMAND INPUT` into a fresh log, against python3-lmdb putting INPUT's lines into a fresh
/// environment, 1,000 per durable commit; each run once per `--runs`.
func againstPythonPuts(_ command: String, input: String) throws -> (flowlog: Timings, baseline: Timings) {
    var flowlog = Timings()
    var baseline = Timings()
    for _ in 0..<options.runs {
        fresh(work + "/\(command).lmdb")
        flowlog.samples.append(try seconds { try run(options.flowlog, [command, input, "--db", work + "/\(command).lmdb"], stdout: "/dev/null") })
        fresh(work + "/py-\(command).lmdb")
        baseline.samples.append(try pythonBaseline(options, ["puts", input, work + "/py-\(command).lmdb", "1000"]).seconds)
    }
    return (flowlog, baseline)
}

if options.cases.contains("push") {
    try pushCase(options: options, work: work, commands: options.commands, sessions: 1_000, report: &report)
}
if options.cases.contains("dispatch") {
    try dispatchCase(options: options, work: work, count: 10_000, report: &report)
}

if options.cases.contains("send") {
    let commands = Workload(streams: 1_000).commands(count: options.commands)
    try Data((commands.map(WireCommand.encode).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: commandsPath))
    let (flowlog, baseline) = try againstPythonPuts("send", input: commandsPath)
    report.add(
        "send \(options.commands) commands (whole process: parse, decide, append, answer)", work: Double(options.commands), unit: "commands", flowlog,
        baseline: (pythonPutsBaseline, baseline, Double(options.commands)), note: "target ≥ 200k commands/s")
}

// MARK: import

if options.cases.contains("import") {
    let (flowlog, baseline) = try againstPythonPuts("import", input: exportPath)
    report.add(
        "import \(eventCount) events from NDJSON (whole process)", work: Double(eventCount), unit: "events", flowlog,
        baseline: (pythonPutsBaseline, baseline, Double(eventCount)), note: "target ratio ≥ 1")
}

// MARK: replay

/// Decodes (checking the hash chain) and folds every event of the log into its stream's state;
/// returns the number of streams. Events of one stream come in runs, so the stream's slot is looked
/// up only when the stream changes.
func replayAll(_ log: LMDBEventLog) throws -> Int {
    var folds: [StreamFold] = []
    var slots: [String: Int] = [:]
    var currentStream = ""
    var current = -1
    try log.forEachEvent(from: 1, through: nil) { record in
        if current < 0 || record.stream != currentStream {
            current =
                slots[record.stream]
                ?? {
                    folds.append(StreamFold.initial)
                    slots[record.stream] = folds.count - 1
                    return folds.count - 1
                }()
            currentStream = record.stream
        }
        folds[current].fold(record)
        return true
    }
    return folds.count
}

if options.cases.contains("replay") {
    let log = try LMDBEventLog(path: sourcePath, access: .readOnly)
    var rawOptions = Environment.Options()
    rawOptions.readOnly = true
    let rawEnvironment = try Environment(path: sourcePath, options: rawOptions)
    let rawEvents = try rawEnvironment.openDatabases(named: ["events"], create: false)[0]
    var flowlog = Timings()
    var walk = Timings()
    var decoder = Timings()
    var checksum = 0
    for _ in 0..<options.runs {
        flowlog.samples.append(try seconds { checksum &+= try replayAll(log) })
        walk.samples.append(
            try seconds {
                var bytes = 0
                try rawEnvironment.read { txn in
                    try txn.withCursor(rawEvents) { cursor in
                        var record = try cursor.first()
                        while let (_, value) = record {
                            bytes &+= value.count
                            record = try cursor.next()
                        }
                    }
                }
                checksum &+= bytes
            })
    }
    // Foundation's JSONDecoder on the same events (decoding only, no evolve), on the first 200,000 lines.
    let lines = try String(contentsOfFile: exportPath, encoding: .utf8).split(separator: "\n").prefix(200_000).map { Data($0.utf8) }
    let jsonDecoder = JSONDecoder()
    for _ in 0..<options.runs {
        decoder.samples.append(
            try seconds {
                for line in lines { checksum &+= try jsonDecoder.decode(CodableEvent.self, from: line).position }
            })
    }
    report.add(
        "replay \(eventCount) events (decode, check, evolve cart and onboarding)", work: Double(eventCount), unit: "events", flowlog,
        baseline: ("Foundation JSONDecoder, same events", decoder, Double(lines.count)), note: "targets ≥ 3M events/s and ≥ 25× JSONDecoder")
    report.add(
        "raw LMDB cursor walk of the same records (Swift wrapper over the C API)", work: Double(eventCount), unit: "records", walk,
        note: "the ceiling replay works under (checksum \(checksum % 10))")
}

// MARK: export

if options.cases.contains("export") {
    var flowlog = Timings()
    var baseline = Timings()
    let pyDB = work + "/py-reads.lmdb"
    fresh(pyDB)
    _ = try pythonBaseline(options, ["puts", exportPath, pyDB, "10000"])
    for _ in 0..<options.runs {
        flowlog.samples.append(try seconds { try run(options.flowlog, ["export", "--db", sourcePath], stdout: "/dev/null") })
        baseline.samples.append(try pythonBaseline(options, ["reads", pyDB]).seconds)
    }
    report.add(
        "export \(eventCount) events as NDJSON (whole process)", work: Double(eventCount), unit: "events", flowlog,
        baseline: ("python3-lmdb cursor read of the same lines", baseline, Double(eventCount)), note: "target ≥ 1M events/s")
}

// MARK: state --at

if options.cases.contains("state") {
    var rng = SystemRandomNumberGenerator()
    var flowlog = Timings()
    for _ in 0..<max(options.runs, 20) {
        let position = Int.random(in: 1...eventCount, using: &rng)
        let stream = "session-\(Int.random(in: 0..<1_000, using: &rng))"
        flowlog.samples.append(
            try seconds {
                try run(
                    options.flowlog, ["state", "--db", sourcePath, "--stream", stream, "--at", String(position), "--format", "json"],
                    stdout: "/dev/null")
            })
    }
    report.add("state --at a random position of a random stream (whole process)", work: 1, unit: "calls", flowlog, note: "target < 20 ms")
}

// MARK: state --at on one long stream (snapshots)

/// Builds a log through the pipeline, in batches, unless one of that size is already there.
func buildLog(at path: String, events: Int, workload: Workload) throws {
    if (try? LMDBEventLog(path: path, access: .readOnly).lastPosition()) == events { return }
    log("making a log of \(events) events at \(path)…")
    fresh(path)
    let target = try LMDBEventLog(path: path)
    let processor = CommandProcessor(log: target)
    var made = 0
    var visit = 0
    while made < events {
        var batch: [CommandEnvelope] = []
        while batch.count < 20_000, made + batch.count < events {
            for stream in 0..<workload.streams { batch += workload.visit(visit, stream: stream) }
            visit += 1
        }
        batch = Array(batch.prefix(events - made))
        _ = try processor.handle(batch)
        made += batch.count
    }
    // On disk before anything is timed: the kernel's writeback of a new log of gigabytes otherwise
    // runs beside the first measurements, on one of this machine's two cores.
    sync()
}

if options.cases.contains("longstream") {
    let path = work + "/long.lmdb"
    try buildLog(at: path, events: options.events, workload: Workload(streams: 1))
    let longLog = try LMDBEventLog(path: path, access: .readOnly)
    let total = try longLog.lastPosition()
    var rng = SystemRandomNumberGenerator()
    var flowlog = Timings()
    for _ in 0..<max(options.runs, 20) {
        let position = Int.random(in: 1...total, using: &rng)
        flowlog.samples.append(
            try seconds {
                try run(
                    options.flowlog, ["state", "--db", path, "--stream", "session-0", "--at", String(position), "--format", "json"],
                    stdout: "/dev/null")
            })
    }
    report.add(
        "state --at a random position of ONE stream of \(total) events (whole process, snapshots every \(try longLog.snapshotInterval()))", work: 1,
        unit: "calls", flowlog, note: "target < 20 ms")
}

// MARK: group commit

if options.cases.contains("group") {
    try runGroupCommit(options, work: work, report: &report)
}

// MARK: replay alone (for profiling)

if options.cases.contains("replayonly") {
    let log = try LMDBEventLog(path: sourcePath, access: .readOnly)
    var timings = Timings()
    for _ in 0..<options.runs {
        timings.samples.append(try seconds { _ = try replayAll(log) })
    }
    report.add("replay alone (for profiling: no baseline)", work: Double(eventCount), unit: "events", timings)
}

if options.cases.contains("decodeonly") {
    // The first stage of an import on its own: NDJSON lines to recorded events, one thread.
    let lines = try Data(contentsOf: URL(fileURLWithPath: exportPath)).split(separator: UInt8(ascii: "\n")).map(Array.init)
    var timings = Timings()
    for _ in 0..<options.runs {
        timings.samples.append(
            try seconds {
                for line in lines {
                    _ = try line.withUnsafeBytes { try RecordedEventJSON.decode($0) }
                }
            })
    }
    report.add("decoding NDJSON alone (for profiling: no baseline)", work: Double(lines.count), unit: "events", timings)
}

if options.cases.contains("postgres") {
    try runPostgres(options, sourceNDJSON: exportPath, sourceEvents: eventCount, report: &report)
}

print(report.render())

if !options.scaleSizes.isEmpty {
    let plot = options.plot ?? options.work + "/scale.svg"
    let rows = try runScale(options) { rows in
        // After each size: the table so far in WORK/scale.md, and the plot.
        try Data((renderScale(rows) + "\n").utf8).write(to: URL(fileURLWithPath: options.work + "/scale.md"))
        try Data(ScalePlot.svg(rows).utf8).write(to: URL(fileURLWithPath: plot))
    }
    print("\n" + renderScale(rows))
    log("plot: \(plot)")
}

if options.cases.contains("sendparts") {
    let commands = Workload(streams: 1_000).commands(count: options.commands)
    let lines = commands.map { Array(WireCommand.encode($0).utf8) }
    var envelopes: [CommandEnvelope] = []
    let parse = seconds {
        envelopes = lines.map { line in line.withUnsafeBytes { try! WireCommand.decode($0).get() } }
    }
    let memory = try seconds {
        let processor = CommandProcessor(log: InMemoryEventLog())
        for start in stride(from: 0, to: envelopes.count, by: 5000) {
            _ = try processor.handle(Array(envelopes[start..<min(start + 5000, envelopes.count)]))
        }
    }
    fresh(work + "/parts.lmdb")
    let lmdbLog = try LMDBEventLog(path: work + "/parts.lmdb")
    var outcomes: [CommandOutcome] = []
    let onDisk = try seconds {
        let processor = CommandProcessor(log: lmdbLog)
        for start in stride(from: 0, to: envelopes.count, by: 5000) {
            outcomes += try processor.handle(Array(envelopes[start..<min(start + 5000, envelopes.count)]))
        }
    }
    var json = JSONWriter(capacity: 1 << 20)
    let answer = seconds {
        for outcome in outcomes {
            FlowJSON.writeAnswer(outcome, into: &json)
            json.newline()
        }
    }
    print(
        "parse \(parse * 1000) ms, decide+in-memory append \(memory * 1000) ms, decide+LMDB append \(onDisk * 1000) ms, answers \(answer * 1000) ms")
}
