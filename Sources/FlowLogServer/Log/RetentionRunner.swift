#if Network
    import FlowLogBasics
    import FlowLogStore
    import Foundation
    import Logging
    import FlowLogProjectors

    /// `serve`'s side of the log's retention (`flowlog retain --set`): a thread of its own that asks
    /// the `RetentionSchedule` every `checkEvery` seconds, so the retention is applied when the server
    /// starts and then once a day, and a run of many batches never holds up a request.
    ///
    /// It forgets beside the writer thread's appends: on LMDB both are write transactions, which LMDB
    /// serialises, and forgetting uses none of the log object's append buffers; an append to a session
    /// being forgotten lands before its batch (the session is young again and kept) or after it (the
    /// session starts anew). Before each batch, `beforeBatch` (the composition root's) takes the
    /// sessions' lines out of the trackers' files, holding the trackers' leases: when a tracker runner
    /// holds them, the day's run fails before forgetting anything, and that runner, whose own schedule
    /// rewrites its files, applies the retention on its daily run. A log that cannot forget is only read here.
    final class RetentionRunner: Sendable {
        private struct Progress {
            var stopping = false
            var running = true
        }

        /// The thread sleeps here between checks, and `stop()` waits here for the thread.
        private let progress = ConditionBox(Progress())
        private let checkEvery: Double

        init(
            log: LogHandle, clock: any WallClock = SystemClock(), checkEvery: Double = 60,
            beforeBatch: @escaping @Sendable ([String]) throws -> Void = { _ in }, logger: Logger
        ) {
            // Made here, then used by the runner's thread alone.
            nonisolated(unsafe) let schedule = RetentionSchedule(log: log.log, clock: clock, beforeBatch: beforeBatch) { line in
                logger.info("\(line)", metadata: ["task": "retention"])
            }
            self.checkEvery = checkEvery
            let thread = Thread { [self] in loop(schedule) }
            thread.name = "flowlog-retention"
            thread.start()
        }

        private func loop(_ schedule: RetentionSchedule) {
            let checkEvery = checkEvery
            while !isStopping {
                schedule.runIfDue { isStopping }
                progress.withLock(waitingUntil: \.stopping, deadline: Date(timeIntervalSinceNow: checkEvery)) { _ in }
            }
            progress.withLock { progress in
                progress.running = false
                self.progress.broadcast()
            }
        }

        private var isStopping: Bool {
            progress.withLock { $0.stopping }
        }

        /// Ends the thread once the batch under way (if any) is committed, and waits for it.
        func stop() {
            progress.withLock { progress in
                progress.stopping = true
                self.progress.broadcast()
            }
            progress.withLock(waitingUntil: { !$0.running }) { _ in }
        }
    }
#endif
