import FlowLogSystem

/// Keeps the memory map in place while a reader on another thread uses it.
///
/// LMDB resizes the map of a process (`mdb_env_set_mapsize`) by unmapping it and mapping it again,
/// possibly elsewhere: a read transaction open meanwhile on another thread would go on reading
/// memory that is gone. FlowLog's own threads never read while their process resizes, except a
/// reader that works ahead of the writer (`Environment.readBesideWriter`); it holds this lock
/// shared, and every resize holds it exclusively, so each waits for the other.
///
/// Unchecked `Sendable`: a pthread read-write lock, which the standard library does not offer; it guards itself.
final class RemapLock: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init() {
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// `body` with no resize under way, none starting before it returns.
    func reading<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// `body` (a resize) once no reader beside the writer is under way, none starting before it returns.
    func resizing<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
