import FlowLogBasics
public import FlowLogStore
import FlowLogSystem

/// One projector, one runner. Two processes running the same tracker both delivered every call, so
/// collectors received duplicates; a runner now holds this lock for as long as it runs the projector.
///
/// The lock is `flock` on `LOG/projector-NAME.lock`: the kernel drops it when its holder's descriptor
/// closes, so it dies with the process, however that ends (SIGKILL included), and no stale lock is
/// ever left to clear by hand. The file holds the holder's pid, only for the message the next process
/// gives; the file itself stays (removing it would let a third process lock a new file while the
/// second still holds the old one). It lives in the log folder, beside `data.mdb` and `lock.mdb`,
/// which LMDB and `mdb_stat` ignore; it is opened close-on-exec, so no child (a bisect check) inherits it.
public final class ProjectorLock: ProjectorLease {
    public let projector: String
    private let descriptor: Int32

    public static func path(of projector: String, in log: LMDBEventLog) -> String {
        (log.path.hasSuffix("/") ? log.path : log.path + "/") + "projector-\(projector).lock"
    }

    /// Takes the lock at once or throws `FlowLogError.busy` naming the process that holds it.
    public init(projector: String, log: LMDBEventLog) throws {
        self.projector = projector
        let path = Self.path(of: projector, in: log)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            if errno == EACCES || errno == EPERM || errno == EROFS { throw FlowLogError.permissionDenied(path: log.path) }
            throw FlowLogError.input("Cannot open the projector lock \(path): \(String(cString: strerror(errno))).")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.holder(descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw FlowLogError.busy(ProjectorBusy(projector: projector, pid: holder)) }
            throw FlowLogError.input("Cannot lock \(path): \(String(cString: strerror(code))).")
        }
        self.descriptor = descriptor
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 { _ = pwrite(descriptor, pid, pid.count, 0) }
    }

    deinit { close(descriptor) }

    /// The process holding `projector`'s lock, or `nil` when nobody does: a shared lock tried
    /// without waiting fails only while someone holds the exclusive one (this process too, through
    /// another descriptor). It is let go at once; a runner taking the lock in that instant is told
    /// it is busy and tries again.
    static func holder(of projector: String, in log: LMDBEventLog) -> LeaseHolder? {
        let descriptor = open(path(of: projector, in: log), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else { return nil }
        return errno == EWOULDBLOCK ? LeaseHolder(pid: holder(descriptor), host: nil, generation: nil) : nil
    }

    private static func holder(_ descriptor: Int32) -> pid_t? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return pid_t(String(decoding: bytes[..<count].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }, as: UTF8.self))
    }
}
