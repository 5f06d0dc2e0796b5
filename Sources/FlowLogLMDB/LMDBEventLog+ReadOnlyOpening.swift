import FlowLogSystem
import LMDB

extension LMDBEventLog {
    /// Opens the environment. A read-only open of a log whose lock file this user may not write
    /// (a folder of mode 0555, a `lock.mdb` of mode 0444, or no lock file in a folder that cannot
    /// take one) goes without LMDB's lock file (`MDB_NOLOCK`), so such a log can be read at all;
    /// on a read-only file system LMDB itself reads without locks. Records are still checked one by
    /// one (chain hash), so a writer that changes the log meanwhile shows up as damage, not as a
    /// wrong answer.
    static func openEnvironment(path: String, options: Environment.Options) throws(LMDBError) -> Environment {
        let firstError: LMDBError
        do {
            return try Environment(path: path, options: options)
        } catch {
            firstError = error
        }
        guard options.readOnly, firstError.code == EACCES || firstError.code == EPERM else { throw firstError }
        var withoutLock = options
        withoutLock.noLock = true
        return try Environment(path: path, options: withoutLock)
    }
}
