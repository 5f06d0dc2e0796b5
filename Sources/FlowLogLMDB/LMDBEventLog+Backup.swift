import FlowLogBasics
public import FlowLogStore
import FlowLogSystem
import LMDB

extension LMDBEventLog: LogBackup {
    /// The name the copy is written under until it is complete.
    public static let partialBackupName = "data.mdb.partial"

    /// A compacted copy (`MDB_CP_COMPACT`) of one read transaction, written to
    /// `FOLDER/data.mdb.partial`, synced, then renamed to `data.mdb` and the folder synced: a
    /// reader never finds half a copy under the name of a log, and a killed backup leaves only the
    /// `.partial`. Writers go on meanwhile; the copy holds the log as it was when its read began.
    public func backup(into folder: String) throws {
        let partial = folder + "/" + Self.partialBackupName
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FlowLogError.output(.cannotOpen(folder + "/data.mdb", errno: errno)) }
        var finished = false
        defer {
            close(descriptor)
            if !finished { unlink(partial) }
        }
        do {
            try environment.copy(to: descriptor, compacting: true)
        } catch {
            throw FlowLogError.output(.cannotFinish(folder + "/data.mdb", errno: error.code))
        }
        guard fsync(descriptor) == 0 else { throw FlowLogError.output(.cannotFinish(folder + "/data.mdb", errno: errno)) }
        guard rename(partial, folder + "/data.mdb") == 0 else { throw FlowLogError.output(.cannotFinish(folder + "/data.mdb", errno: errno)) }
        finished = true
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }
}
