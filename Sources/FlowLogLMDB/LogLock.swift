public import FlowLogBasics
import FlowLogSystem

/// The log lock: `flock` on `LOG/flowlog.lock`. Every `LMDBEventLog` holds it shared for as long as
/// it lives; `flowlog compact` takes it exclusively, so that it replaces `data.mdb` only while no
/// process has the log open. A process that kept the old file mapped would go on reading (and
/// appending to) a file that is no longer the log, and LMDB's `lock.mdb` would mix the two files'
/// transaction ids.
///
/// Why `flock` (as `ProjectorLock`): the kernel drops it when its descriptor closes, so it dies with
/// its process however that ends (SIGKILL included) and no stale lock is ever left to clear by hand;
/// shared and exclusive modes are exactly "open" and "compacting". A lock belongs to one open file
/// description, not to a process, so two `LMDBEventLog`s of one log in one process hold two shared
/// locks that never conflict, and an exclusive holder must not open an `LMDBEventLog` of the same
/// log (its shared lock would wait for the exclusive one for ever). The file is opened close-on-exec,
/// so no child (a bisect check) inherits it; it stays in the folder (removing it would let a later
/// process lock a new file while an earlier one still holds the old one) and is empty.
///
/// The shared lock is taken before LMDB opens the environment, not after: a process that opened it
/// first and then waited for a compaction to finish would hold the replaced file and a lock table
/// made for it.
public final class LogLock {
    public static let fileName = "flowlog.lock"

    /// `-1`: no lock (a read-only open of a folder where the lock file can be neither created nor opened).
    private let descriptor: Int32
    /// Whether this process created the file, so that a folder found not to be a log is left as it was.
    private let created: Bool
    private let path: String

    public static func path(in folder: String) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + fileName
    }

    private init(descriptor: Int32, created: Bool, path: String) {
        (self.descriptor, self.created, self.path) = (descriptor, created, path)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Whether a lock is held (`false` only for a read-only open that had to go without).
    public var isHeld: Bool { descriptor >= 0 }

    /// The shared lock of a process that opens the log, waiting while a compaction holds it
    /// exclusively (a compaction is bounded, and a command that waits is better than one that fails).
    ///
    /// A read-only open where the file can be neither created nor opened (a folder of mode 0555, a
    /// read-only file system) goes without: such a folder cannot be compacted either (compaction
    /// writes the copy beside `data.mdb`), so there is nothing the lock would keep out.
    static func shared(in folder: String, readOnly: Bool) throws(FlowLogError) -> LogLock {
        let path = Self.path(in: folder)
        guard let (descriptor, created) = try openFile(path, folder: folder) else {
            if readOnly { return LogLock(descriptor: -1, created: false, path: path) }
            throw .permissionDenied(path: folder)
        }
        while flock(descriptor, LOCK_SH) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(descriptor)
                throw .io(path: folder, detail: "cannot lock \(path): \(String(cString: strerror(code)))")
            }
        }
        return LogLock(descriptor: descriptor, created: created, path: path)
    }

    /// The exclusive lock, or `FlowLogError.logInUse` naming the processes that hold the log open
    /// (Linux's /proc/locks), or "another process" where none can be named. A holder that is letting
    /// go is waited for, up to `patience` seconds: a process ending, or a child another thread of
    /// this process just forked (it shares the lock's open file until it runs its program, which
    /// closes it), holds the lock for moments, and an open that ends then is no reason to refuse.
    public static func exclusive(in folder: String, for operation: String, patience: Double = 0.5) throws(FlowLogError) -> LogLock {
        let path = Self.path(in: folder)
        guard let (descriptor, created) = try openFile(path, folder: folder) else { throw .permissionDenied(path: folder) }
        let deadline = MonotonicClock.seconds() + patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK, MonotonicClock.seconds() < deadline {
                usleep(10_000)
                continue
            }
            let holders = code == EWOULDBLOCK ? Self.holders(of: descriptor) : []
            close(descriptor)
            if code == EWOULDBLOCK { throw .logInUse(LogInUse(path: folder, operation: operation, pids: holders)) }
            throw .io(path: folder, detail: "cannot lock \(path): \(String(cString: strerror(code)))")
        }
        return LogLock(descriptor: descriptor, created: created, path: path)
    }

    /// Removes the file when this process created it: for a folder found to hold another program's
    /// environment, which FlowLog leaves as it found it. Any other FlowLog process that opened the
    /// file meanwhile refuses that folder too, so no lock anyone relies on is lost.
    func discardIfCreated() {
        if created { unlink(path) }
    }

    /// Opens (or creates) the lock file: read-write when it can, else read-only (`flock` needs no
    /// more; another user's file of mode 0644). `nil` when it is missing and cannot be created.
    private static func openFile(_ path: String, folder: String) throws(FlowLogError) -> (Int32, Bool)? {
        let flags = O_CLOEXEC | O_NOFOLLOW
        let made = open(path, O_RDWR | O_CREAT | O_EXCL | flags, 0o644)
        if made >= 0 { return (made, true) }
        var code = errno
        if code == EEXIST {
            let existing = open(path, O_RDWR | flags)
            if existing >= 0 { return (existing, false) }
            code = errno
        }
        if code == EACCES || code == EPERM || code == EROFS {
            let readable = open(path, O_RDONLY | flags)
            if readable >= 0 { return (readable, false) }
            if errno == ENOENT { return nil }
            code = errno
        }
        if code == EACCES || code == EPERM || code == EROFS { throw .permissionDenied(path: folder) }
        if code == ENOSPC { throw .diskFull(path: folder) }
        throw .io(path: folder, detail: "cannot open the log lock \(path): \(String(cString: strerror(code)))")
    }

    /// The pids that hold a lock on the file `descriptor` is open on, read from /proc/locks, whose
    /// lines read `1: FLOCK  ADVISORY  READ 12345 08:01:1234567 0 EOF` (pid, then the device's major
    /// and minor in hex and the inode in decimal); lines of waiters (`1: -> FLOCK …`) are left out.
    /// Empty where /proc/locks is missing or names no holder (a holder in another pid namespace).
    static func holders(of descriptor: Int32) -> [Int32] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return [] }
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        let file = String(major, radix: 16) + ":" + String(minor, radix: 16) + ":" + String(UInt64(info.st_ino))
        var pids: [Int32] = []
        for line in readAll("/proc/locks").split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]), pid > 0 else { continue }
            let parts = fields[5].split(separator: ":")
            guard parts.count == 3, let fieldMajor = UInt64(parts[0], radix: 16), let fieldMinor = UInt64(parts[1], radix: 16),
                String(fieldMajor, radix: 16) + ":" + String(fieldMinor, radix: 16) + ":" + parts[2] == file
            else { continue }
            if !pids.contains(pid) { pids.append(pid) }
        }
        return pids.sorted()
    }

    private static func readAll(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
