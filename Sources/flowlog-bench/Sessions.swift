import FlowLogLMDB
import Foundation

// MARK: Sessions: the log's real shape, many short streams

/// The length of session `index`: 1 to 40 events, most of them short (as an app's sessions are:
/// a look and gone, now and then a long visit), the same for every run. The mean is about 2.9.
func sessionLength(_ index: Int) -> Int {
    var generator = SplitMix64Bench(seed: UInt64(index))
    let uniform = Double(generator.next() >> 11) / Double(1 << 53)
    return min(40, 1 + Int(-log(max(uniform, 1e-12)) * 2))
}

/// The name of session `index`: `session-N`, or with `random` a version-4 UUID drawn from the
/// index, the same for every run.
func sessionName(_ index: Int, random: Bool) -> String {
    guard random else { return "session-\(index)" }
    var generator = SplitMix64Bench(seed: UInt64(index) ^ 0x5E55_1015)
    let (high, low) = (generator.next() & ~0xF000 | 0x4000, generator.next() & ~(0xC << 60) | (0x8 << 60))
    func hex(_ value: UInt64, _ digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
    return "\(hex(high >> 32, 8))-\(hex(high >> 16 & 0xFFFF, 4))-\(hex(high & 0xFFFF, 4))-\(hex(low >> 48, 4))-\(hex(low & 0xFFFF_FFFF_FFFF, 12))"
}

/// Writes the commands of `sessions` sessions: a thousand sessions open at a time, their commands
/// interleaved, each session adding products to its cart and, past two events, checking out.
func writeSessionCommands(sessions: Int, randomIds: Bool = false, to path: String) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = FileHandle(forWritingAtPath: path)!
    defer { try? handle.close() }
    var buffer = ""
    for first in stride(from: 0, to: sessions, by: 1_000) {
        let open = first..<min(first + 1_000, sessions)
        let longest = open.map(sessionLength).max() ?? 0
        for step in 0..<longest {
            for session in open where step < sessionLength(session) {
                let (length, name) = (sessionLength(session), sessionName(session, random: randomIds))
                buffer +=
                    step == length - 1 && length > 2
                    ? #"{"type":"cart.checkout","stream":"\#(name)"}"#
                    : #"{"type":"cart.addProduct","stream":"\#(name)","productId":"p\#(step)","unitPrice":350,"quantity":1}"#
                buffer += "\n"
            }
        }
        if buffer.utf8.count > 1 << 22 {
            try handle.write(contentsOf: Data(buffer.utf8))
            buffer = ""
        }
    }
    try handle.write(contentsOf: Data(buffer.utf8))
}

/// For each size: a log of that many sessions made by `send` into an empty log, then every command
/// that walks a whole log, each one whole process with its time and peak anonymous memory; and
/// `send` of one command into each of a million new streams against a million into 1,000 known
/// streams, run by run.
func runSessions(_ options: Options, finished: ([ScaleRow]) throws -> Void = { _ in }) throws -> [ScaleRow] {
    var rows: [ScaleRow] = []
    let work = options.work
    for sessions in options.sessionSizes {
        let path = work + "/sessions-\(sessions).lmdb"
        let commands = work + "/sessions-commands.ndjson"
        try writeSessionCommands(sessions: sessions, randomIds: options.randomSessionIds, to: commands)
        log("sessions \(sessions): sending…")
        fresh(path)
        let made = try measureProcess(options.flowlog, ["send", "--db", path], stdin: commands)
        fresh(commands)
        let events = try LMDBEventLog(path: path, access: .readOnly).lastPosition()
        func add(_ command: String, work: Int, _ measure: ProcessMeasure, pairedRatio: Double? = nil) {
            rows.append(
                ScaleRow(events: events, streams: sessions, command: command, work: work, measure: measure, ceiling: nil, pairedRatio: pairedRatio))
            log("  \(command): \(String(format: "%.2f", measure.seconds)) s, anon \(measure.peakAnon >> 20) MB")
        }
        add("send of every session's commands into an empty log", work: events, made)
        let runs = sessions > 2_000_000 ? 1 : options.runs
        for arguments in [
            ["streams"], ["streams", "--format", "json"], ["replay", "--summary"], ["replay", "--verify"], ["verify"], ["export"],
            ["retain", "--dry-run", "--older-than", "1h"],
        ] {
            add(
                arguments.joined(separator: " "), work: events,
                try medianMeasure(runs: runs) {
                    try measureProcess(options.flowlog, arguments + ["--db", path])
                })
        }
        let exported = work + "/sessions-export.ndjson"
        try run(options.flowlog, ["export", "--db", path], stdout: exported)
        for (command, arguments) in [
            ("import", ["import", exported]), ("copy", ["copy", "--from", path, "--to"]), ("backup", ["backup", "--db", path, "--to"]),
        ] {
            let target = work + "/sessions-target.lmdb"
            add(
                command, work: events,
                try medianMeasure(runs: min(runs, 3)) {
                    fresh(target)
                    defer { fresh(target) }
                    return try measureProcess(options.flowlog, arguments + (command == "import" ? ["--db", target] : [target]))
                })
        }
        fresh(exported)
        // The commands that write into the log, each on a copy of it made by `backup` (unmeasured):
        // the trackers' and read model's catch-up, and the erasure of two sessions (the first and
        // one in the middle) by the correlation id of a command sent to each: a launch of the app,
        // which a session takes whatever its cart's state (an added product is refused once the
        // cart checks out).
        let copy = work + "/sessions-copy.lmdb"
        let trackers = work + "/sessions-trackers"
        let correlated = work + "/sessions-correlated.ndjson"
        let named = [sessionName(0, random: options.randomSessionIds), sessionName(sessions / 2, random: options.randomSessionIds)]
        try named.map {
            #"{"type":"app.launched","stream":"\#($0)","correlationId":"bench-erasure","hasOnboarded":false}"# + "\n"
        }
        .joined().write(toFile: correlated, atomically: true, encoding: .utf8)
        for (command, arguments) in [
            ("projections run", ["projections", "run", "--tracker-dir", trackers]),
            ("forget --correlation-id (two sessions)", ["forget", "--correlation-id", "bench-erasure", "--reason", "bench"]),
        ] {
            add(
                command, work: events,
                try medianMeasure(runs: min(runs, 3)) {
                    fresh(copy)
                    fresh(trackers)
                    defer {
                        fresh(copy)
                        fresh(trackers)
                    }
                    try run(options.flowlog, ["backup", "--db", path, "--to", copy])
                    _ = try measureProcess(options.flowlog, ["send", "--db", copy], stdin: correlated)
                    return try measureProcess(options.flowlog, arguments + ["--db", copy])
                })
        }
        fresh(correlated)
        fresh(path)
        try finished(rows)
    }
    if !options.sessionSizes.isEmpty { rows += try newAgainstKnownStreams(options) }
    return rows
}

/// `send` of one command into each of 1,000,000 new streams (fewer when every size is smaller), and
/// of as many commands into 1,000 streams, each into an empty log, alternated run by run.
func newAgainstKnownStreams(_ options: Options) throws -> [ScaleRow] {
    let count = min(1_000_000, options.sessionSizes.max() ?? 0)
    let new = options.work + "/sessions-new.ndjson"
    let known = options.work + "/sessions-known.ndjson"
    try Data(
        (0..<count).map {
            #"{"type":"cart.addProduct","stream":"\#(sessionName($0, random: options.randomSessionIds))","productId":"p1","unitPrice":350,"quantity":1}"#
                + "\n"
        }.joined().utf8
    ).write(to: URL(fileURLWithPath: new))
    // Into known streams: each of 1,000 carts adds and removes its products in turn (a cart holds at most 100).
    try Data(
        (0..<count).map { index in
            let (stream, visit) = (sessionName(index % 1_000, random: options.randomSessionIds), index / 1_000)
            return visit % 2 == 0
                ? #"{"type":"cart.addProduct","stream":"\#(stream)","productId":"p\#(visit / 2 % 50)","unitPrice":350,"quantity":1}"# + "\n"
                : #"{"type":"cart.removeProduct","stream":"\#(stream)","productId":"p\#(visit / 2 % 50)"}"# + "\n"
        }.joined().utf8
    ).write(to: URL(fileURLWithPath: known))
    defer {
        fresh(new)
        fresh(known)
    }
    var news: [ProcessMeasure] = []
    var knowns: [ProcessMeasure] = []
    let target = options.work + "/sessions-send.lmdb"
    for _ in 0..<options.runs {
        for (input, into) in [(new, 0), (known, 1)] {
            fresh(target)
            let measure = try measureProcess(options.flowlog, ["send", "--db", target], stdin: input)
            if into == 0 { news.append(measure) } else { knowns.append(measure) }
        }
    }
    fresh(target)
    let ratio = Timings(samples: news.map(\.seconds)).pairedRatio(
        work: Double(count), against: Timings(samples: knowns.map(\.seconds)), otherWork: Double(count))
    return [
        ScaleRow(
            events: count, streams: count, command: "send, one command into each of \(count) new streams", work: count, measure: medianOf(news),
            ceiling: nil, pairedRatio: ratio),
        ScaleRow(
            events: count, streams: 1_000, command: "send, \(count) commands into 1,000 streams", work: count, measure: medianOf(knowns),
            ceiling: nil, pairedRatio: nil),
    ]
}

/// The many-sessions table: a row for each command on each size.
func renderSessions(_ rows: [ScaleRow], randomIds: Bool = false) -> String {
    var lines = ["log | command | median | rate | against known streams | peak anonymous memory", "---|---|---|---|---|---"]
    for row in rows {
        let rate = row.rate >= 1e6 ? String(format: "%.2fM/s", row.rate / 1e6) : String(format: "%.0fk/s", row.rate / 1e3)
        let ratio = row.pairedRatio.map { String(format: "%.2f×, run by run", $0) } ?? ""
        lines.append(
            "\(row.streams) sessions\(randomIds ? " with random ids" : ""), \(row.events) events | \(row.command) | \(String(format: "%.2f s", row.measure.seconds)) | \(rate) | \(ratio) | \(row.measure.peakAnon >> 20) MB"
        )
    }
    return lines.joined(separator: "\n")
}
