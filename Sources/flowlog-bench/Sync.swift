import Deciding
import FlowLog
import FlowLogLMDB
import Foundation

// MARK: Sync: push against import, and an app's dispatch against single durable puts

/// A `flowlog serve --key-file` on a fresh log at `db`, on a free loopback port, until `stop`.
struct BenchServer {
    let process: Process
    let base: String

    init(flowlog: String, db: String, key: String) throws {
        let announced = db + ".out"
        _ = FileManager.default.createFile(atPath: announced, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: flowlog)
        process.arguments = ["serve", "--db", db, "--key-file", key, "--listen", "127.0.0.1:0"]
        process.standardOutput = FileHandle(forWritingAtPath: announced)
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var found: String?
        for _ in 0..<800 where found == nil {
            usleep(10_000)
            let text = (try? String(contentsOfFile: announced, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on ") { found = String(text[range.upperBound...].prefix { !$0.isWhitespace }) }
        }
        guard let found else { throw BenchError("flowlog serve did not start on \(db)") }
        base = found
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// `push` of a device log (`commands` commands over `sessions` sessions, sent first) into an empty
/// server log on loopback, against `import` of the same events (its export) into an empty log:
/// whole processes, alternating, `runs` times each. Adds the push's peak anonymous memory.
func pushCase(options: Options, work: String, commands: Int, sessions: Int, report: inout Report) throws {
    let device = work + "/push-device.lmdb"
    let exported = work + "/push-device.ndjson"
    let key = work + "/push.key"
    let input = work + "/push-commands.ndjson"
    fresh(device)
    let envelopes = Workload(streams: sessions).commands(count: commands)
    try Data((envelopes.map(WireCommand.encode).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
    _ = try run(options.flowlog, ["send", input, "--db", device], stdout: "/dev/null")
    _ = try run(options.flowlog, ["export", "--db", device, "--output", exported, "--force"])
    try Data(repeating: 0x6B, count: 32).write(to: URL(fileURLWithPath: key))
    let events = try LMDBEventLog(path: device, access: .readOnly).lastPosition()
    var pushes = Timings()
    var imports = Timings()
    var peakAnon = 0
    for _ in 0..<options.runs {
        let server = work + "/push-server.lmdb"
        fresh(server)
        let serving = try BenchServer(flowlog: options.flowlog, db: server, key: key)
        let pushed = try measureProcess(options.flowlog, ["push", "--db", device, "--to", serving.base])
        serving.stop()
        pushes.samples.append(pushed.seconds)
        peakAnon = max(peakAnon, pushed.peakAnon)
        let imported = work + "/push-import.lmdb"
        fresh(imported)
        imports.samples.append(try measureProcess(options.flowlog, ["import", exported, "--db", imported]).seconds)
    }
    report.add(
        "push \(events) events over \(sessions) sessions into an empty server log (loopback, whole processes)", work: Double(events), unit: "events",
        pushes,
        baseline: ("flowlog import of the same events", imports, Double(events)),
        note: String(format: "target ratio ≥ 0.3; push's peak anonymous memory %.1f MB", Double(peakAnon) / 1e6))
}

/// An app's `dispatch`: `count` commands one at a time, each decided and durable before the next
/// (`CommandProcessor.handle`, one commit each), against python3-lmdb's as many single-put
/// synchronous commits.
func dispatchCase(options: Options, work: String, count: Int, report: inout Report) throws {
    let envelopes = Workload(streams: 20).commands(count: count)
    var flowlog = Timings()
    var baseline = Timings()
    for _ in 0..<options.runs {
        let path = work + "/dispatch.lmdb"
        fresh(path)
        let log = try LMDBEventLog(path: path, access: .readWriteCreating)
        let processor = CommandProcessor(log: log)
        flowlog.samples.append(
            try seconds {
                for envelope in envelopes { _ = try processor.handle(envelope) }
            })
        let python = work + "/dispatch-py.lmdb"
        fresh(python)
        baseline.samples.append(try pythonBaseline(options, ["single", python, String(count)]).seconds)
    }
    report.add(
        "dispatch \(count) commands one at a time, each durable (in process)", work: Double(count), unit: "commands", flowlog,
        baseline: ("python3-lmdb single-put synchronous commits", baseline, Double(count)), note: "target ratio ≥ 0.5")
}
