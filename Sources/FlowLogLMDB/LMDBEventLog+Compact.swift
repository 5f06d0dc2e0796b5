public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem
import LMDB

extension LMDBEventLog {
    /// The name the compacted copy is written under, inside the log's folder, until it replaces
    /// `data.mdb`. LMDB reads only `data.mdb` and `lock.mdb`, so a copy a killed compaction left
    /// never makes the folder unreadable; the next compaction removes it.
    public static let compactingName = "data.mdb.compact"

    /// Rewrites the log at `path` without its free pages (`flowlog compact`): the pages LMDB freed
    /// and keeps for reuse still hold whatever was written on them, and only a copy that leaves them
    /// out removes those bytes from the disk. Pending batch records (log schema 4) are copied as
    /// they are, with any fold progress in `meta`: the copy reads as the log did, and the next
    /// commit's fold carries on.
    ///
    /// The steps, each needed for what follows it:
    /// 1. the log lock, exclusively (`LogLock`, waiting half a second for a holder letting go), or
    ///    `FlowLogError.logInUse` naming the processes that hold the log open: a process with
    ///    `data.mdb` mapped would go on with the old file. This process opens no `LMDBEventLog` of
    ///    its own (its shared lock would wait for ever on this exclusive one): it reads the
    ///    environment directly, read-only;
    /// 2. LMDB's compacting copy (`MDB_CP_COMPACT`, one read transaction) into `data.mdb.compact`,
    ///    synced, with `data.mdb`'s permissions; the environment is then closed;
    /// 3. `rename` over `data.mdb`, which is atomic, and the folder synced: a SIGKILL at any moment
    ///    leaves either the old file or the new one, never half of one.
    ///
    /// `lock.mdb` stays: its reader table and last transaction id were the old file's, and reusing
    /// them is safe because no process holds the environment open when the exclusive lock is granted,
    /// and every process takes the shared lock before it opens the environment. The next process to
    /// open it is then alone with it, and LMDB resets the table and takes the transaction id from
    /// the new file's meta page (`mdb_env_share_locks`). Programs that do not take the log lock
    /// (`mdb_stat`, another LMDB tool) must not hold the log open during a compaction.
    public static func compact(path: String) throws(FlowLogError) -> LogCompaction {
        try LogFolder.prepare(path: path, creating: false)
        let lock = try LogLock.exclusive(in: path, for: "flowlog compact")
        defer { withExtendedLifetime(lock) {} }
        let data = path + "/data.mdb"
        let partial = path + "/" + compactingName
        if unlink(partial) != 0 && errno != ENOENT {
            throw fileError(errno, path: path, doing: "removing \(partial), left by a compaction that was stopped")
        }
        var info = stat()
        guard stat(data, &info) == 0 else { throw fileError(errno, path: path, doing: "reading \(data)") }
        do {
            try writeCompactedCopy(of: path, to: partial, mode: info.st_mode & 0o7777)
        } catch {
            // Another program's environment is left as it was found, without a lock file.
            if case .notALog = error { lock.discardIfCreated() }
            throw error
        }
        guard rename(partial, data) == 0 else {
            let code = errno
            unlink(partial)
            throw fileError(code, path: path, doing: "replacing data.mdb with its compacted copy")
        }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        var after = stat()
        guard stat(data, &after) == 0 else { throw fileError(errno, path: path, doing: "reading \(data)") }
        return LogCompaction(location: path, bytesBefore: Int(info.st_size), bytesAfter: Int(after.st_size))
    }

    /// Writes and syncs the compacted copy; the environment is closed when this returns. A copy that
    /// could not be finished is removed.
    private static func writeCompactedCopy(of path: String, to partial: String, mode: mode_t) throws(FlowLogError) {
        var options = Environment.Options()
        options.readOnly = true
        options.maxDatabases = 16
        let environment: Environment
        let recognition: LogRecognition
        do {
            environment = try openEnvironment(path: path, options: options)
            recognition = try LogRecognition.inspect(environment)
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        guard recognition == .log else {
            throw .notALog(
                path: path, reason: recognition.refusal ?? "it is an LMDB environment that holds no FlowLog log yet, so there is nothing to compact")
        }
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw fileError(errno, path: path, doing: "creating \(partial)") }
        var finished = false
        defer {
            close(descriptor)
            if !finished { unlink(partial) }
        }
        fchmod(descriptor, mode)
        do {
            try environment.copy(to: descriptor, compacting: true)
        } catch {
            throw fileError(error.code, path: path, doing: "writing the compacted copy \(partial) (\(error))")
        }
        guard fsync(descriptor) == 0 else { throw fileError(errno, path: path, doing: "syncing \(partial)") }
        finished = true
    }

    private static func fileError(_ code: Int32, path: String, doing: String) -> FlowLogError {
        switch code {
        case EACCES, EPERM, EROFS: .permissionDenied(path: path)
        case ENOSPC, EDQUOT:
            .io(
                path: path,
                detail:
                    "\(doing) failed: the disk is full (the copy needs room beside data.mdb, up to its size); data.mdb was not changed. Free some space, then run compact again"
            )
        default: .io(path: path, detail: "\(doing) failed: \(String(cString: strerror(code))); data.mdb was not changed")
        }
    }
}
