import ArgumentParser

/// `flowlog compact`: what was deleted from a log (free pages of LMDB, dead rows of PostgreSQL)
/// removed from the disk too, not only from the answers.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite the log without its free space, so that bytes it no longer uses are gone from the disk.",
        discussion: """
            An LMDB log keeps the pages it freed for reuse, with whatever was written on them. compact \
            writes a compacted copy of the log beside its data.mdb (data.mdb.compact, which needs room \
            up to the log's size), syncs it and renames it over data.mdb: a compaction that is stopped \
            or killed leaves the log as it was, or compacted, never half of it. It needs the log to \
            itself: while any other process has the log open (serve, projections run --follow, log \
            --follow, any command), compact exits 75 naming those processes; stop them and run it again.

            A PostgreSQL log (--db postgres://…) runs VACUUM FULL on the log's tables, which takes an \
            ACCESS EXCLUSIVE lock on each table while it rewrites it: appends, reads and followers of \
            the log wait until it is done.

            What compaction cannot reach: copies made by `\(Program.name) backup` or of the folder, PostgreSQL's \
            WAL, base backups and replicas, and what the trackers already sent.
            """)

    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let done = try Backend(logOptions.logPath).compact()
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("log")
                    json.string(done.location)
                    json.key("bytesBefore")
                    json.int(done.bytesBefore)
                    json.key("bytesAfter")
                    json.int(done.bytesAfter)
                    json.endObject()
                }
            } else {
                output.line("compacted \(done.location): \(done.bytesBefore) → \(done.bytesAfter) bytes")
            }
        }
    }
}
