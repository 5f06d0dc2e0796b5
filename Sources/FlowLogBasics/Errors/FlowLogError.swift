import FlowLogSystem

/// What went wrong in FlowLog's application layer, as a sentence that says how to mend it: the one
/// error type of the layer. Opening, reading and writing a log (whatever its backend), reading
/// input, writing output, another process holding a projector, a collector that keeps refusing.
/// Backends give their own detail as text; the command line maps each case to an exit status in
/// one place.
public enum FlowLogError: Error, Equatable, CustomStringConvertible {
    /// There is no log at the path, and the command does not create one.
    case notFound(path: String)
    /// The folder that would hold the log does not exist.
    case missingParent(path: String, parent: String)
    /// Something is at the path, but it is not a FlowLog log.
    case notALog(path: String, reason: String)
    case permissionDenied(path: String)
    /// The log was written by a newer FlowLog.
    case newerSchema(path: String, found: Int, supported: Int)
    /// A stored record failed its checks.
    case damaged(RecordDamage)
    /// The storage around the records is damaged (a page no record's position names).
    case damagedFile(FileDamage)
    /// The disk is full; nothing of the batch was written.
    case diskFull(path: String)
    /// Any other storage failure, with the backend's own words.
    case io(path: String, detail: String)
    /// Another process runs the projector this one needs.
    case busy(ProjectorBusy)
    /// Other processes hold the log open that an operation needs to itself (`compact`).
    case logInUse(LogInUse)
    /// An import refused a line; nothing was imported.
    case refusedImport(ImportError)
    /// An input file or stream could not be read.
    case input(String)
    /// An input file (an export to replay, expected states, commands to send) could not be opened:
    /// `errorNumber` says why (missing, not permitted, …).
    case unreadableInput(path: String, errorNumber: Int32)
    /// An input file holds something FlowLog will not read; the sentence names the line and how to mend it.
    case invalidInput(String)
    /// An output path was refused, or could not be written.
    case output(OutputPathError)
    /// An analytics collector kept refusing; the tracker stopped before the calls it refused.
    case delivery(DeliveryFailure)

    public var description: String {
        if let text = databaseDescription { return text }
        return switch self {
        case .notFound(let path):
            "There is no FlowLog log at \(path). Check the path (--db or FLOWLOG_DB), or create the log by sending it a command (for example `\(ProgramName.current) \(ProgramName.firstCommand)`)."
        case .missingParent(let path, let parent):
            "Cannot create the log \(path): the folder \(parent) does not exist. Create that folder first, or choose another --db path."
        case .notALog(let path, let reason):
            "\(path) is not a FlowLog log: \(reason). Point --db at a log folder, or at a new path to start a new log."
        case .permissionDenied(let path):
            "Permission denied for the log at \(path). To change it, run as a user who may write that folder (and its data.mdb and lock.mdb); commands that only read it (state, log, export, verify, …) need only permission to read it."
        case .newerSchema(let path, let found, let supported):
            "The log at \(path) was written with log schema \(found), but this FlowLog reads schemas up to \(supported). Upgrade FlowLog to read it; nothing was changed."
        case .damaged(let damage):
            damage.isNewerThanKnown
                ? "\(damage) Nothing after it was read, and nothing was changed."
                : damage.outOfRange != nil
                    ? "\(damage) Nothing after it was read, and nothing was changed; restore the log from a backup taken before the import that stored it, or import its source into a new log with this FlowLog, which refuses such values line by line."
                    : "\(damage) Nothing after it was read; keep a copy of the log folder for inspection, and restore the log from a backup."
        case .damagedFile(let damage):
            "\(damage) Nothing after it was read; keep a copy of the log folder for inspection, and restore the log from a backup."
        case .diskFull(let path):
            "The disk holding \(path) is full (or the log reached a file-size limit); nothing of this batch was written, and everything acknowledged before it is safe. Free some space and send the unanswered commands again."
        case .io(_, let detail):
            "The log storage failed: \(detail). Nothing of this batch was written."
        case .busy(let busy): busy.description
        case .logInUse(let inUse): inUse.description
        case .refusedImport(let refusal): refusal.description
        case .input(let message): message
        case .unreadableInput(let path, let errorNumber):
            "Cannot read \(path): \(String(cString: strerror(errorNumber))). Check the path\(errorNumber == EACCES ? ", or the file's permissions" : "")."
        case .invalidInput(let message): message
        case .output(let problem): problem.description
        case .delivery(let failure):
            "\(failure.description.prefix(1).uppercased())\(failure.description.dropFirst()). Check that the collector is up, then run `\(ProgramName.current) projections run` again."
        }
    }

    /// The sentences for a log in a database (`postgres://…`, named without its password), where a
    /// folder's advice would mislead.
    private var databaseDescription: String? {
        func isURL(_ path: String) -> Bool { path.hasPrefix("postgres://") || path.hasPrefix("postgresql://") }
        switch self {
        case .notFound(let path) where isURL(path):
            return
                "There is no FlowLog log at \(path) (no such database, or no FlowLog tables in that schema). Check --db (or FLOWLOG_DB); a writing command creates the log's schema and tables, but never the database: create it first (createdb)."
        case .notALog(let path, let reason) where isURL(path):
            return
                "\(path) is not a FlowLog log: \(reason). Point --db at a FlowLog schema (?schema=NAME), or at an empty or new schema to start a new log."
        case .permissionDenied(let path) where isURL(path):
            return
                "PostgreSQL refused access to the log at \(path): the password was wrong or missing, or the role may not use that database or schema. Check the user and the password (in the URL, PGPASSWORD or ~/.pgpass), or grant the role access."
        case .io(let path, let detail) where isURL(path):
            return "The log at \(path) could not be used: \(detail)."
        case .diskFull(let path) where isURL(path):
            return
                "The PostgreSQL server of \(path) is out of disk space; nothing of this batch was written, and everything acknowledged before it is safe. Free some space on the server and send the unanswered commands again."
        default:
            return nil
        }
    }
}
