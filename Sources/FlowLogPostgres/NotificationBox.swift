#if Network
    import Foundation

    /// The highest position announced by `NOTIFY`, and a condition to wait on for the next one.
    final class NotificationBox: @unchecked Sendable {
        private let condition = NSCondition()
        private var announced = 0
        private var count = 0

        func announce(_ position: Int) {
            condition.lock()
            announced = max(announced, position)
            count += 1
            condition.broadcast()
            condition.unlock()
        }

        /// The highest announced position, and how many notifications came so far.
        var state: (position: Int, count: Int) {
            condition.lock()
            defer { condition.unlock() }
            return (announced, count)
        }

        /// Waits until a notification after the `count`th arrives, or `until` passes.
        func wait(after count: Int, until deadline: Date) {
            condition.lock()
            while self.count == count, condition.wait(until: deadline) {}
            condition.unlock()
        }
    }
#endif
