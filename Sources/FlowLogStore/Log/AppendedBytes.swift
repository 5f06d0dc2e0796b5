#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of the records a thread's appends wrote while it counts them (`counting`): what a
/// `flowlog.commit` span reports as `flowlog.commit.bytes`.
///
/// Counted per thread, not returned through `EventLog.append`: every backend appends on its
/// caller's thread, and only a caller that traces commits asks, so the count costs an append one
/// thread-local read when nobody counts and the log's contract stays what it is. A backend adds
/// the bytes of a transaction it sends (`add`), never of a guess it threw away.
public enum AppendedBytes {
    /// The count of this thread plus one (0: not counting), as the thread-local pointer's address.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// `body`'s result and the bytes of the records appended on this thread while it ran.
    public static func counting<T>(_ body: () throws -> T) rethrows -> (T, bytes: Int) {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, outer) }
        let result = try body()
        return (result, Int(bitPattern: pthread_getspecific(key)) - 1)
    }

    /// Adds `bytes` to this thread's count, if it counts.
    package static func add(_ bytes: Int) {
        guard bytes > 0, let counted = pthread_getspecific(key) else { return }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: Int(bitPattern: counted) + bytes))
    }
}
