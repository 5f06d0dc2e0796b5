import FlowLogSystem

/// An advisory lock on a file of its own, held while `body` runs: several processes changing one
/// file (a tracker's journal) take turns. The kernel drops it with its holder, however that ends.
public enum FileLock {
    public static func exclusively<Result>(_ path: String, _ body: () throws -> Result) throws -> Result {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FlowLogError.input("Cannot open \(path): \(String(cString: strerror(errno))).") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FlowLogError.input("Cannot lock \(path): \(String(cString: strerror(errno))).") }
        }
        return try body()
    }
}
