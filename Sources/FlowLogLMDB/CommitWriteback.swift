import FlowLogBasics
import Foundation
import LMDB

/// Asks the kernel, every couple of milliseconds while a large commit runs, to start writing back
/// the pages the commit has handed it so far (`sync_file_range(…, SYNC_FILE_RANGE_WRITE)`).
///
/// LMDB commits by writing every dirty page into the page cache and then calling `fdatasync`, which
/// only then starts the device writing, so a large commit (a million-event import's) sat in
/// `fdatasync` long after its writes. Started early, the device writes
/// while LMDB is still handing over pages, and `fdatasync` finds little left to wait for. This
/// changes when data reaches the disk, never whether: LMDB's own `fdatasync` calls, and their order
/// (data before the meta page), stay as they are.
///
/// It lives here, not in `LMDB`: which commits are large enough for it is the log's choice (only an
/// import's), made through `Environment.write(aroundCommit:)`, and here it runs on FlowLog's
/// `WorkerThread`, whose stop-and-wait the server's command writer shares, while `LMDB` stays a
/// Swift layer over the C library that depends on nothing else.
final class CommitWriteback: Sendable {
    /// How often writeback is started while the commit runs.
    static let interval: TimeInterval = 0.002

    private let file: Environment.DataFile
    private let worker = WorkerThread()

    /// Starts the background thread for `environment`'s data file; `nil` if LMDB reports no file.
    init?(environment: Environment) {
        guard let file = environment.dataFile else { return nil }
        self.file = file
        worker.start { [self] in run() }
    }

    /// Runs `commit` with writeback started beside it (`Environment.write`'s `aroundCommit`).
    static func around(_ commit: () -> Void, in environment: Environment) {
        let writeback = CommitWriteback(environment: environment)
        commit()
        writeback?.stop()
    }

    /// Runs on the worker's thread: asks for writeback, then sleeps `interval` unless asked to stop.
    private func run() {
        while !worker.isStopping {
            file.startWriteback()
            worker.waitForStop(until: Date(timeIntervalSinceNow: Self.interval))
        }
    }

    /// Whether the thread has made its last call (for tests).
    var hasFinished: Bool { worker.hasFinished }

    /// Stops the thread and waits until it has made its last call, so that the file is never
    /// used after the caller moves on (and might close it).
    func stop() {
        worker.stop()
    }
}
