#if Network
    import FlowLogMemory
    import Foundation
    import Synchronization

    /// The scratch sessions `POST /sessions` made: at most `capacity`, the least recently used dropped
    /// first, each dropped `lifetime` after its last use. They never touch the server's log. Each is
    /// FlowLogMemory's read-only log (`SessionFile`), which many reader threads may read at once.
    final class ScratchSessions: Sendable {
        private typealias Held = [String: (log: ReadOnlyMemoryLog, lastUse: ContinuousClock.Instant)]
        private let held = Mutex<Held>([:])
        let capacity: Int
        let lifetime: Duration
        private let metrics: ServerMetrics

        init(capacity: Int, lifetime: Duration, metrics: ServerMetrics) {
            self.capacity = capacity
            self.lifetime = lifetime
            self.metrics = metrics
        }

        /// A new random id: 16 random bytes in base64url, 22 characters.
        static func newID() -> String {
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            return Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }

        func add(_ log: ReadOnlyMemoryLog, id: String) {
            held.withLock { sessions in
                expire(&sessions)
                while sessions.count >= capacity, let oldest = sessions.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                    sessions[oldest] = nil
                }
                sessions[id] = (log, .now)
                metrics.setSessions(sessions.count)
            }
        }

        /// The session, its use recorded; `nil` when it is gone.
        func use(_ id: String) -> ReadOnlyMemoryLog? {
            held.withLock { sessions in
                expire(&sessions)
                guard let found = sessions[id] else { return nil }
                sessions[id] = (found.log, .now)
                return found.log
            }
        }

        func remove(_ id: String) -> Bool {
            held.withLock { sessions in
                expire(&sessions)
                let removed = sessions.removeValue(forKey: id) != nil
                metrics.setSessions(sessions.count)
                return removed
            }
        }

        /// Drops the sessions unused for `lifetime` (the caller holds the lock).
        private func expire(_ sessions: inout Held) {
            let now = ContinuousClock.now
            sessions = sessions.filter { now - $0.value.lastUse < lifetime }
            metrics.setSessions(sessions.count)
        }
    }
#endif
