import FlowLog
import FlowLogBasics
import FlowLogTesting
import Foundation

// MARK: PostgreSQL: `flowlog` against a throwaway server, with the raw floor and a peer in the same run

/// The `postgres` case: a server of the tests' harness (`PostgresServer`: initdb into /tmp as the
/// `postgres` user, a Unix socket), made durable for the bench (`fsync = on`, `full_page_writes = on`:
/// the harness turns them off for the tests' speed; a commit is then on disk, as LMDB's are). Every
/// run writes into a fresh schema. Needs the `flowlog` built with the default traits (PostgreSQL).
func runPostgres(_ options: Options, sourceNDJSON: String, sourceEvents: Int, report: inout Report) throws {
    let server = PostgresServer.shared
    try server.psql("ALTER SYSTEM SET fsync = on")
    try server.psql("ALTER SYSTEM SET full_page_writes = on")
    try server.psql("SELECT pg_reload_conf()")
    log("PostgreSQL: \(try server.psql("SELECT version()")) (fsync \(try server.psql("SHOW fsync")))")
    let psql = server.binaries + "/psql"
    let work = options.work
    func psqlArguments(_ command: String) -> [String] {
        [
            "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", server.socketFolder, "-p", String(server.port), "-U", "postgres",
            "-d", PostgresServer.database, "-c", command,
        ]
    }
    func count(_ schema: String) throws -> Int { Int(try server.psql("SELECT count(*) FROM \(schema).events"))! }

    // send: 200,000 commands (or --pg-commands) over 1,000 sessions, one transaction per batch of lines.
    let commands = options.postgresCommands
    let commandsFile = work + "/pg-commands.ndjson"
    let lines = Workload(streams: 1_000).commands(count: commands).map { WireCommand.encode($0) + "\n" }
    try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: commandsFile))
    // The batches `send` makes: what one 1 MiB read of the file holds (LineReader's chunk).
    var batches = 1
    var filled = 0
    for line in lines {
        if filled + line.utf8.count > 1 << 20 {
            batches += 1
            filled = 0
        }
        filled += line.utf8.count
    }
    var send = Timings()
    var sentSchema = ""
    for index in 0..<options.runs {
        let schema = server.freshName("send")
        send.samples.append(
            try seconds {
                try run(options.flowlog, ["send", commandsFile, "--db", server.url(schema: schema)], stdout: "/dev/null")
            })
        if index == 0 { sentSchema = schema }
    }
    let sentEvents = try count(sentSchema)
    let sentNDJSON = work + "/pg-sent.ndjson"
    try run(options.flowlog, ["export", "--db", server.url(schema: sentSchema)], stdout: sentNDJSON)
    let batchSize = (sentEvents + batches - 1) / batches
    // The peer takes tens of seconds a run: one run each (its rate varies less than FlowLog's sub-second runs).
    var peerSend = Timings()
    for _ in 0..<1 {
        let schema = server.freshName("peer")
        try server.psql("CREATE SCHEMA \(schema)")
        peerSend.samples.append(try peer(options, sentNDJSON, batch: batchSize, schema: schema, server: server))
    }
    report.add(
        "PostgreSQL: send \(commands) commands (\(sentEvents) events, about \(batches) batches; whole process)", work: Double(commands),
        unit: "commands", send,
        baseline: (
            "eventsourcing (Python) PostgresApplicationRecorder: the same \(sentEvents) events, \(batchSize) a batch, 1 run", peerSend,
            Double(sentEvents)
        ),
        note: "target ≥ 50k commands/s; ratio: commands/s against events/s")

    // import: the bench's NDJSON (1M events), against psql \copy of the same rows into a table like `events`.
    var importing = Timings()
    var copying = Timings()
    var peerImport = Timings()
    var exporting = Timings()
    var copyOut = Timings()
    var importedSchema = ""
    for index in 0..<options.runs {
        let schema = server.freshName("import")
        importing.samples.append(
            try seconds {
                try run(options.flowlog, ["import", sourceNDJSON, "--db", server.url(schema: schema)], stdout: "/dev/null")
            })
        if index == 0 { importedSchema = schema } else { try server.psql("DROP SCHEMA \(schema) CASCADE") }
    }
    let rows = work + "/pg-rows.copy"
    try run(psql, psqlArguments("\\copy \(importedSchema).events TO '\(rows)'"))
    for _ in 0..<options.runs {
        let schema = server.freshName("copy")
        try server.psql("CREATE SCHEMA \(schema); CREATE TABLE \(schema).events (LIKE \(importedSchema).events INCLUDING ALL)")
        copying.samples.append(try seconds { try run(psql, psqlArguments("\\copy \(schema).events FROM '\(rows)'")) })
        try server.psql("DROP SCHEMA \(schema) CASCADE")
    }
    for _ in 0..<1 {
        let schema = server.freshName("peerimport")
        try server.psql("CREATE SCHEMA \(schema)")
        peerImport.samples.append(try peer(options, sourceNDJSON, batch: 32_768, schema: schema, server: server))
        try server.psql("DROP SCHEMA \(schema) CASCADE")
    }
    report.add(
        "PostgreSQL: import \(sourceEvents) events from NDJSON (whole process)", work: Double(sourceEvents), unit: "events", importing,
        baseline: ("psql \\copy of the same rows into a table like events (same indexes)", copying, Double(sourceEvents)), note: "target ratio ≥ 0.5")
    report.add(
        "PostgreSQL: import, against the peer", work: Double(sourceEvents), unit: "events", importing,
        baseline: ("eventsourcing (Python) PostgresApplicationRecorder, 32,768 a batch, 1 run", peerImport, Double(sourceEvents)), note: "")

    // export of the imported log, against psql \copy of its table to /dev/null.
    for _ in 0..<options.runs {
        exporting.samples.append(
            try seconds {
                try run(options.flowlog, ["export", "--db", server.url(schema: importedSchema)], stdout: "/dev/null")
            })
        copyOut.samples.append(try seconds { try run(psql, psqlArguments("\\copy \(importedSchema).events TO '/dev/null'")) })
    }
    report.add(
        "PostgreSQL: export \(sourceEvents) events as NDJSON (whole process)", work: Double(sourceEvents), unit: "events", exporting,
        baseline: ("psql \\copy of the events table to /dev/null", copyOut, Double(sourceEvents)), note: "")

    // A single typed command, whole process (start, connect, decide, commit, answer), on the sent log.
    var single = Timings()
    var lmdbSingle = Timings()
    let lmdbPath = work + "/pg-single.lmdb"
    fresh(lmdbPath)
    for index in 0..<max(options.runs * 20, 100) {
        let arguments = [
            "cart", "add", "--product", "p\(index % 7)", "--name", "Mug", "--price", "3.50", "--quantity", "1", "--stream", "rt-\(index % 10)",
        ]
        single.samples.append(try seconds { try run(options.flowlog, arguments + ["--db", server.url(schema: sentSchema)], stdout: "/dev/null") })
        lmdbSingle.samples.append(try seconds { try run(options.flowlog, arguments + ["--db", lmdbPath], stdout: "/dev/null") })
    }
    report.add(
        "PostgreSQL: one typed command (cart add), whole process; p99 \(ms(single.percentile(0.99)))", work: 1, unit: "commands", single,
        baseline: ("the same on an LMDB log, p99 \(ms(lmdbSingle.percentile(0.99)))", lmdbSingle, 1), note: "")
}

/// The `eventsourcing` peer appending FILE's events into SCHEMA, BATCH a call; its seconds.
private func peer(_ options: Options, _ file: String, batch: Int, schema: String, server: PostgresServer) throws -> Double {
    let output = try run(
        options.peerPython,
        [
            options.peerScript, "append", file, String(batch), PostgresServer.database,
            server.socketFolder, String(server.port), schema,
        ])
    guard case .number(let seconds)? = try JSONParser.parse(output)["seconds"] else { throw BenchError("the peer said \(output)") }
    return seconds
}

private func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

extension Timings {
    /// The nearest-rank percentile of the samples.
    func percentile(_ fraction: Double) -> Double {
        let sorted = samples.sorted()
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
    }
}
