import ArgumentParser
import Deciding
import FlowLogBasics
import FlowLogHistory
import FlowLogStore
import FlowLogSystem

struct UpgradeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade",
        abstract: "Raise the log to the newest log schema this FlowLog writes, after writing a backup.",
        discussion: """
            A log holds only the event kind versions its schema allows (`\(Program.name) schema events` says \
            which schema each version needs); until it is raised, this FlowLog writes every event in a \
            version the log's schema holds and refuses a command whose event needs a newer one \
            (logUpgradeRequired). Builds before the new schema refuse an upgraded log ("Upgrade \
            FlowLog", exit 65): upgrade every writer and reader of the log first. The schema in the \
            log's metadata is raised in one transaction, after the backup is complete (raising it to 3 \
            rewrites every record into the salted layout that `forget` needs, in that same \
            transaction), so a killed upgrade leaves the log as it was, or raised with its backup \
            written. The backup is a copy of the log folder (`\(Program.name) backup`), or for PostgreSQL an \
            NDJSON export that `\(Program.name) import` restores into an empty log. \
            It also repairs, after the backup and in one transaction, what earlier FlowLogs kept wrong \
            beside the events of an LMDB log (orders in a currency other than USD, read back in USD, \
            and the state fingerprints taken from them); the events themselves never change.
            """)

    @Option(
        help: ArgumentHelp(
            "Where to write the backup: a new folder for an LMDB log, a new file for PostgreSQL (default: beside the log, or in the current folder, named after it).",
            valueName: "path"))
    var backup: String?
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readWrite)
            let before = try log.settings()
            let target = log.capabilities.newestLogSchema
            var backupPath: String?
            if before.logSchema < target {
                backupPath = try writeBackup(of: log, schema: before.logSchema)
                _ = try log.updateSettings { settings, _ in
                    var raised = settings
                    raised.logSchema = max(settings.logSchema, target)
                    return raised
                }
            }
            // What earlier FlowLogs kept wrong beside the events, once the backup is written.
            var repaired = KeptRowRepair()
            if let repairing = log.capabilities.keptRowRepair, !(try repairing.repairKeptRows(dryRun: true)).isEmpty {
                if backupPath == nil { backupPath = try writeBackup(of: log, schema: before.logSchema) }
                repaired = try repairing.repairKeptRows(dryRun: false)
            }
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("log")
                    json.string(log.location)
                    json.key("from")
                    json.int(before.logSchema)
                    json.key("to")
                    json.int(max(before.logSchema, target))
                    json.key("backup")
                    if let backupPath { json.string(backupPath) } else { json.null() }
                    json.key("repaired")
                    json.beginObject()
                    json.key("streams")
                    json.int(repaired.streams)
                    json.key("rows")
                    json.int(repaired.rows)
                    json.key("fingerprints")
                    json.int(repaired.fingerprints)
                    json.endObject()
                    json.endObject()
                }
            } else if let backupPath {
                if before.logSchema < target {
                    output.line(
                        "upgraded \(log.location) from log schema \(before.logSchema) to \(target); the log as it was is in \(backupPath). FlowLog builds before schema \(target) refuse the log from now on."
                    )
                }
                if !repaired.isEmpty {
                    output.line(
                        "repaired what an earlier FlowLog kept beside the events: the orders of \(repaired.streams) stream\(repaired.streams == 1 ? "" : "s") (\(repaired.rows) kept), which had lost their cart's currency, and \(repaired.fingerprints) recorded state fingerprint\(repaired.fingerprints == 1 ? "" : "s") taken from them; the events are unchanged, and the log as it was is in \(backupPath)."
                    )
                }
            } else {
                output.line("\(log.location) is at log schema \(before.logSchema) already, the newest this FlowLog writes; nothing was changed.")
            }
        }
    }

    /// The backup, complete, before anything changes: a consistent copy of a log that can copy itself
    /// (LMDB: `LOG.schema-N-backup` beside it by default), else an export (PostgreSQL:
    /// `flowlog-schema-N-backup.ndjson` here by default).
    private func writeBackup(of log: any LogStore, schema: Int) throws -> String {
        if let copying = log.capabilities.backup {
            var folder = logOptions.logPath
            while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
            let path = backup ?? Self.freePath(folder + ".schema-\(schema)-backup", suffix: "")
            try BackupCommand.checkTarget(path)
            try BackupCommand.copy(copying, into: path)
            return path
        }
        let path = backup ?? Self.freePath("flowlog-schema-\(schema)-backup", suffix: ".ndjson")
        var info = stat()
        if stat(path, &info) == 0 {
            throw CLIFailure("\(path) exists; give --backup a new file for the log's export. Nothing was changed.", .usage)
        }
        let file = try OutputFile(try OutputTarget.resolve(path, force: false))
        try EventExport(format: .ndjson).run(from: log, to: file, progress: Progress(label: "backup", total: try log.lastPosition()))
        try file.commit()
        return path
    }

    /// `base` + `suffix`, or with `-2`, `-3`… when that name is taken: a killed upgrade's backup is
    /// kept, never replaced.
    static func freePath(_ base: String, suffix: String) -> String {
        var info = stat()
        var candidate = base + suffix
        var number = 2
        while stat(candidate, &info) == 0 {
            candidate = "\(base)-\(number)\(suffix)"
            number += 1
        }
        return candidate
    }
}
