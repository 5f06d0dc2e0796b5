import FlowLog
import LMDB
import FlowLogSystem

extension FlowLogError {
    /// A failed write, as the user should hear of it: a full disk (or a file-size limit) is named as such.
    static func writing(_ error: LMDBError, path: String) -> FlowLogError {
        if error.code == ENOSPC || error.code == EFBIG || error.code == EDQUOT { return .diskFull(path: path) }
        // LMDB turns a short write (what a full disk gives) into EIO: look at the disk before blaming it.
        if error.code == EIO, isOutOfSpace(path) { return .diskFull(path: path) }
        return .io(path: path, detail: "\(error)")
    }

    /// Whether the filesystem of `path` is (nearly) full, or the process may not grow `data.mdb` further.
    private static func isOutOfSpace(_ path: String) -> Bool {
        var filesystem = statvfs()
        if statvfs(path, &filesystem) == 0, UInt64(filesystem.f_bavail) * UInt64(filesystem.f_frsize) < 8 << 20 { return true }
        var limit = rlimit()
        var file = stat()
        if getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
           stat(path + "/data.mdb", &file) == 0, UInt64(file.st_size) + (8 << 20) >= UInt64(limit.rlim_cur) {
            return true
        }
        return false
    }
}
