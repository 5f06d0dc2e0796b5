#if Network
    import FlowLogBasics
    import Foundation

    /// The highest position announced by `NOTIFY`, and a condition to wait on for the next one.
    final class NotificationBox: Sendable {
        private struct Heard {
            var announced = 0
            var count = 0
        }

        /// Followers wait here for the next notification.
        private let heard = ConditionBox(Heard())

        func announce(_ position: Int) {
            heard.withLock { heard in
                heard.announced = max(heard.announced, position)
                heard.count += 1
                self.heard.broadcast()
            }
        }

        /// The highest announced position, and how many notifications came so far.
        var state: (position: Int, count: Int) {
            heard.withLock { ($0.announced, $0.count) }
        }

        /// Waits until a notification after the `count`th arrives, or `until` passes.
        func wait(after count: Int, until deadline: Date) {
            heard.withLock(waitingUntil: { $0.count != count }, deadline: deadline) { _ in }
        }
    }
#endif
