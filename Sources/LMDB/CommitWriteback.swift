import CLMDB
import Foundation

/// Asks the kernel, every couple of milliseconds while a large commit runs, to start writing back
/// the pages the commit has handed it so far (`sync_file_range(…, SYNC_FILE_RANGE_WRITE)`).
///
/// LMDB commits by writing every dirty page into the page cache and then calling `fdatasync`, which
/// only then starts the device writing: for the 220 MB commit of a million-event import the
/// process sat in `fdatasync` for about 90 ms after the writes. Started early, the device writes
/// while LMDB is still handing over pages, and `fdatasync` finds little left to wait for. This
/// changes when data reaches the disk, never whether: LMDB's own `fdatasync` calls, and their order
/// (data before the meta page), stay as they are.
final class CommitWriteback: @unchecked Sendable {
    /// How often writeback is started while the commit runs.
    static let interval: TimeInterval = 0.002

    private let descriptor: Int32
    private let condition = NSCondition()
    private var stopping = false
    private var finished = false

    /// Starts the background thread for `environment`'s data file; `nil` if LMDB reports no file.
    init?(environment: OpaquePointer) {
        var descriptor: Int32 = -1
        guard mdb_env_get_fd(environment, &descriptor) == 0, descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        Thread { [self] in run() }.start()
    }

    private func run() {
        condition.lock()
        defer {
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        while !stopping {
            condition.unlock()
            // Errors (a file system without writeback, say) only mean nothing was started early.
            _ = sync_file_range(descriptor, 0, 0, 2 /* SYNC_FILE_RANGE_WRITE */)
            condition.lock()
            if !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.interval)) }
        }
    }

    /// Whether the thread has made its last call (for tests).
    var hasFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }

    /// Stops the thread and waits until it has made its last call, so that the descriptor is never
    /// used after the caller moves on (and might close it).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
