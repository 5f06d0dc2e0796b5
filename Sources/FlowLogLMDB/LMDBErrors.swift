import FlowLogBasics
import FlowLogSystem
import LMDB

extension FlowLogError {
    /// A failed write, as the user should hear of it: a full disk (or a file-size limit) is named as such.
    static func writing(_ error: LMDBError, path: String) -> FlowLogError {
        if let damage = damage(error, path: path) { return damage }
        if error.code == ENOSPC || error.code == EFBIG || error.code == EDQUOT { return .diskFull(path: path) }
        // LMDB turns a short write (what a full disk gives) into EIO: look at the disk before blaming it.
        if error.code == EIO, isOutOfSpace(path) { return .diskFull(path: path) }
        return .io(path: path, detail: "\(error)")
    }

    /// A failed read: damage as damage (exit 65), anything else as a failure of the storage.
    static func reading(_ error: LMDBError, path: String) -> FlowLogError {
        if error.isFailedTransaction {
            // A read transaction fails only where LMDB met a damaged page earlier in it (an error a
            // caller passed over, such as a pending index entry it may do without).
            return .damagedFile(
                FileDamage(
                    file: path + "/data.mdb", page: nil, database: nil,
                    problem: "LMDB stopped reading after a damaged page (\(error.operation): \(error.message))"))
        }
        return damage(error, path: path) ?? .io(path: path, detail: "\(error)")
    }

    /// LMDB's report of damaged pages (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`), or a key or value it
    /// returned outside the data file's used pages (`MapBounds`): the record's position when the
    /// damaged value is a record whose key could be read, else the page and the database.
    static func damage(_ error: LMDBError, path: String) -> FlowLogError? {
        guard error.isCorrupted else { return nil }
        guard let damage = error.damage else {
            return .damagedFile(
                FileDamage(
                    file: path + "/data.mdb", page: nil, database: nil,
                    problem: error.detail ?? "LMDB reports \(error.message.prefix(1).lowercased())\(error.message.dropFirst()) (\(error.operation))"))
        }
        if damage.database == LMDBEventLog.databaseNames[1], let key = damage.key, key.count == 8 {
            let position = key.withUnsafeBytes { Keys.decodePosition($0) }
            return .damaged(
                RecordDamage(
                    position: position, stream: nil,
                    problem: """
                        \(error.message)\(damage.page.map { ", on page \($0)" } ?? "") (its node's size or place is damaged); restore the log from a backup
                        """))
        }
        return .damagedFile(
            FileDamage(
                file: path + "/data.mdb", page: damage.page, database: damage.database,
                problem: "\(error.message) (its node's size or place is damaged)"))
    }

    /// Whether the filesystem of `path` is (nearly) full, or the process may not grow `data.mdb` further.
    private static func isOutOfSpace(_ path: String) -> Bool {
        var filesystem = statvfs()
        if statvfs(path, &filesystem) == 0, UInt64(filesystem.f_bavail) * UInt64(filesystem.f_frsize) < 8 << 20 { return true }
        var limit = rlimit()
        var file = stat()
        if getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
            stat(path + "/data.mdb", &file) == 0, UInt64(file.st_size) + (8 << 20) >= UInt64(limit.rlim_cur)
        {
            return true
        }
        return false
    }
}
