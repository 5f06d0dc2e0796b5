#if Network
    import Foundation

    /// A mutex with a closure form.
    final class NSLockLike: @unchecked Sendable {
        private let lock = NSLock()
        func withLock<Value>(_ body: () throws -> Value) rethrows -> Value {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }
    }
#endif
