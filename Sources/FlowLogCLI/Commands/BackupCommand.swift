import ArgumentParser
import FlowLogBasics
import FlowLogStore
import FlowLogSystem
import Foundation

struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the log, consistent and compacted, into a new or empty folder, while writers go on.",
        discussion: """
            The copy holds the log as it was at one moment (the start of the copy), is itself a log \
            (`\(Program.name) verify --db DIR` checks it), and appears under its name only once complete. DIR \
            must not exist (its parent must), or be empty; a folder that holds anything else, or that is \
            inside a log, is refused.
            """)

    @Option(name: .customLong("to"), help: ArgumentHelp("The folder to write the copy into.", valueName: "folder"))
    var folder: String
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            try Self.checkTarget(folder)
            let log = try Composition.openLog(logOptions, access: .readOnly)
            try Self.copy(try Self.backupCapability(of: log), into: folder)
            // What the copy holds, read from the copy itself.
            var copyOptions = LogOptions()
            copyOptions.db = folder
            let copy = try Composition.openLog(copyOptions, access: .readOnly)
            let events = try copy.lastPosition()
            var info = stat()
            let bytes = stat(folder + "/data.mdb", &info) == 0 ? Int(info.st_size) : 0
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("log")
                    json.string(log.location)
                    json.key("backup")
                    json.string(folder)
                    json.key("events")
                    json.int(events)
                    json.key("bytes")
                    json.int(bytes)
                    json.endObject()
                }
            } else {
                output.line(
                    "backed up \(events) events of \(log.location) into \(folder) (\(bytes) bytes); check it with: flowlog verify --db \(folder)")
            }
        }
    }

    /// Writes the copy into `folder` (checked with `checkTarget` first), removing a folder it made
    /// when the copy fails: nothing is left behind but a complete copy.
    static func copy(_ backup: any LogBackup, into folder: String) throws {
        let created = try prepare(folder)
        do {
            try backup.backup(into: folder)
        } catch {
            if created { rmdir(folder) }
            throw error
        }
    }

    /// The log's backups, or what to use instead where its backend has none.
    static func backupCapability(of log: any EventLog) throws -> any LogBackup {
        guard let backup = log.capabilities.backup else {
            throw CLIFailure(
                "The log at \(log.location) cannot make a backup copy (its storage has no consistent copy of its own); use `\(Program.name) export --output FILE`, and `\(Program.name) import FILE` into an empty log to restore it.",
                .usage)
        }
        return backup
    }

    /// Refuses a target that is inside an LMDB environment (a log, or the log itself) or holds
    /// anything but what a killed backup left; nothing is created here.
    static func checkTarget(_ folder: String) throws {
        if let environment = OutputPath.enclosingLMDBEnvironment(of: folder) {
            throw CLIFailure(
                "\(folder) is inside \(environment), an LMDB environment (a FlowLog log, or another program's database); a backup goes into a folder of its own. Choose a new folder outside it; nothing was written.",
                .usage)
        }
        var info = stat()
        guard stat(folder, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIFailure("\(folder) is a file; a backup goes into a folder. Give a new folder (or an empty one); nothing was written.", .usage)
        }
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0 != Composition.partialBackupName }.sorted()
        guard entries.isEmpty else {
            throw CLIFailure(
                "\(folder) is not empty (it holds \(entries.prefix(3).joined(separator: ", "))\(entries.count > 3 ? ", …" : "")); give a new folder, or an empty one. Nothing was written.",
                .usage)
        }
    }

    /// Makes the folder when it does not exist (never its parent); removes a `.partial` a killed
    /// backup left. Returns whether it made the folder.
    static func prepare(_ folder: String) throws -> Bool {
        var info = stat()
        if stat(folder, &info) == 0 {
            unlink(folder + "/" + Composition.partialBackupName)
            return false
        }
        guard mkdir(folder, 0o755) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw CLIFailure(
                    "Cannot create \(folder): its parent folder does not exist. Create it first, or choose another folder.", .cannotCreate)
            }
            throw CLIFailure(
                "Cannot create \(folder): \(String(cString: strerror(code))).",
                code == EACCES || code == EPERM || code == EROFS ? .permission : .cannotCreate)
        }
        return true
    }
}
