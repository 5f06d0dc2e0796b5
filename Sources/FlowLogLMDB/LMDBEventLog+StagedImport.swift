public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem
import LMDB

/// `flowlog import` into an LMDB log, in bounded memory and still all or nothing.
///
/// One write transaction holds every page it writes in heap memory until it commits, so an import
/// of millions of events took hundreds of megabytes. A staged import instead builds the whole
/// result in `LOG/import.partial/` (a copy of the log, or a new log) in steps of
/// `defaultPagesPerStep`, committed without syncing, syncs it once complete, and then renames its
/// `data.mdb` over the log's:
/// - all or nothing: until the rename nothing of the import is in the log; a refused line (or any
///   failure) removes the staged copy, and a SIGKILL leaves it behind where LMDB never reads it
///   (the next process to open the log for writing removes it, and a folder holding only it
///   counts as empty);
/// - no reader or writer sees a half-made log: the import holds the log lock exclusively
///   (`LogLock`) from before it reads the log until after the rename, so other processes' opens
///   wait, as they wait for `flowlog compact`, and then find the log before or after the import;
///   `lock.mdb` stays, for the reasons `compact` gives.
///
/// Where that costs more than it saves, the import is one transaction in the log as before: into a
/// log that holds data when the input's size is known and at most `inPlaceImportLimit` (a staged
/// import would copy the whole log for it, and one transaction of that size stays small), and into
/// a log another process holds open (the exclusive lock cannot be had; LMDB's writer lock then
/// orders the import with the other writers, as it always did, and the other process's map goes on
/// reading the file the import writes, where a replaced file would leave it reading the old one).
extension LMDBEventLog {
    /// The folder inside the log's where a staged import builds the new log. LMDB reads only
    /// `data.mdb` and `lock.mdb`, so a copy a killed import left never makes the log unreadable.
    public static let stagedImportName = "import.partial"

    /// The largest input (in bytes of NDJSON) that goes into a log with data in one transaction in
    /// place, where a staged import would copy the whole log for it. That transaction's memory grows
    /// with the input (LMDB holds every page it changes until the commit), so the limit trades that
    /// memory, once, against a copy of the whole log.
    public static let inPlaceImportLimit = 64 << 20

    /// Pages (of 4 KB) a staged import's step changes before it commits (`ImportSteps`): LMDB holds
    /// about as many in heap memory (16 MB), a quarter of an import's 64 MB; the step also bounds
    /// the batch and the streams held (`withImportSession`). A staged import does not sync its
    /// steps, so smaller steps cost little (decisions.md, "An import commits in steps").
    public static let defaultPagesPerStep = 4_096

    /// Imports `reader`'s lines into the log at `path` (created when missing); returns the number
    /// of events imported. `pagesPerStep` and `inPlaceLimit` are for tests: many small steps, and
    /// a staged import however small.
    public static func importNDJSON(
        intoLogAt path: String, from reader: consuming LineReader, expectedBytes: Int, progress: Progress?,
        pagesPerStep: Int = defaultPagesPerStep, inPlaceLimit: Int = inPlaceImportLimit
    ) throws -> Int {
        try importStaged(
            intoLogAt: path, .lines(reader), expectedBytes: expectedBytes, progress: progress,
            pagesPerStep: pagesPerStep, inPlaceLimit: inPlaceLimit)
    }

    /// As `importNDJSON(intoLogAt:…)`, for the events `produce` hands its sink (`flowlog copy`), in
    /// the order a log holds them; always staged unless another process holds the log open.
    public static func importEvents(
        intoLogAt path: String, pagesPerStep: Int = defaultPagesPerStep,
        _ produce: @escaping (any EventSink) throws -> Void
    ) throws -> Int {
        try importStaged(intoLogAt: path, .events(produce), expectedBytes: 0, progress: nil, pagesPerStep: pagesPerStep, inPlaceLimit: 0)
    }

    /// What a staged import reads: an export's lines, or events handed over one by one.
    private enum ImportInput: ~Copyable {
        case lines(LineReader)
        case events((any EventSink) throws -> Void)

        /// Into the log itself, in one transaction.
        consuming func importInPlace(intoLogAt path: String, expectedBytes: Int, progress: Progress?) throws -> Int {
            switch consume self {
            case .lines(let reader): try LMDBEventLog(path: path).importNDJSON(from: reader, expectedBytes: expectedBytes, progress: progress)
            case .events(let produce): try LMDBEventLog(path: path).importEvents(produce)
            }
        }
    }

    private static func importStaged(
        intoLogAt path: String, _ input: consuming ImportInput, expectedBytes: Int, progress: Progress?,
        pagesPerStep: Int, inPlaceLimit: Int
    ) throws -> Int {
        try LogFolder.prepare(path: path, creating: true)
        var info = stat()
        let hasData = stat(path + "/data.mdb", &info) == 0
        if hasData, expectedBytes > 0, expectedBytes <= inPlaceLimit {
            return try input.importInPlace(intoLogAt: path, expectedBytes: expectedBytes, progress: progress)
        }
        let lock: LogLock
        do {
            lock = try LogLock.exclusive(in: path, for: "flowlog import")
        } catch .logInUse {
            return try input.importInPlace(intoLogAt: path, expectedBytes: expectedBytes, progress: progress)
        }
        defer { withExtendedLifetime(lock) {} }
        let staging = path + "/" + stagedImportName
        try removeStagedImport(staging, log: path)
        var published = false
        defer { if !published { try? removeStagedImport(staging, log: path) } }
        let copiedBytes = hasData ? try copyForImport(of: path, into: staging, lock: lock, mode: info.st_mode & 0o7777) : 0
        if !hasData, mkdir(staging, 0o755) != 0 {
            throw stagingError(errno, path: path, doing: "creating \(staging)")
        }
        let count: Int
        do {
            count = try importStaged(
                at: staging, input, expectedBytes: expectedBytes, copiedBytes: copiedBytes,
                progress: progress, pagesPerStep: pagesPerStep)
        } catch let error as FlowLogError {
            throw error.naming(path, for: staging)
        }
        guard rename(staging + "/data.mdb", path + "/data.mdb") == 0 else {
            throw stagingError(errno, path: path, doing: "replacing data.mdb with the imported log")
        }
        published = true
        syncFolder(path)
        try? removeStagedImport(staging, log: path)
        return count
    }

    /// Builds the staged log: opened without syncing each step, imported into in steps, then
    /// synced (the rename that follows must find every byte on the disk). The log is closed when
    /// this returns.
    private static func importStaged(
        at staging: String, _ input: consuming ImportInput, expectedBytes: Int, copiedBytes: Int,
        progress: Progress?, pagesPerStep: Int
    ) throws -> Int {
        // The input is read once, so the map must be large enough from the start; an input of unknown
        // size (a pipe) gets 64 GiB of address space (not of disk: the file grows as it is written).
        let room = expectedBytes > 0 ? expectedBytes * 3 : 1 << 36
        let log = try LMDBEventLog(path: staging, access: .readWriteCreating, initialMapSize: max(1 << 30, copiedBytes + room + (64 << 20)))
        do {
            try log.environment.setSynchronousCommits(false)
            let target = StagedImportTarget(log: log, pagesPerStep: pagesPerStep)
            let count: Int
            switch consume input {
            case .lines(let reader):
                count = try ImportPipeline.run(reader, into: target, expectedBytes: expectedBytes, progress: progress)
            case .events(let produce):
                count = try target.withImportSession(expectedBytes: 0) { session in try (session as! LMDBImportSession).importEvents(produce) }
            }
            try log.environment.sync()
            return count
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: staging)
        }
    }

    /// Copies the log's `data.mdb` into `staging`, after checking that the folder holds a log:
    /// another program's environment is refused before anything is written, and the lock file, if
    /// this import created it, is removed again. Returns the copy's size.
    ///
    /// A copy of the file's bytes, made in the kernel (`sendfile`), not LMDB's compacting copy: with
    /// the log lock held exclusively no process writes the file, so its bytes are an environment as
    /// its last commit left it. LMDB's compacting copy (`mdb_env_copyfd2`) walks the B-trees and
    /// writes every page through user space, several times slower for a large log (with an `fsync`,
    /// as `flowlog backup` makes it).
    private static func copyForImport(of path: String, into staging: String, lock: LogLock, mode: mode_t) throws(FlowLogError) -> Int {
        var options = Environment.Options()
        options.readOnly = true
        options.maxDatabases = 16
        let recognition: LogRecognition
        do {
            recognition = try LogRecognition.inspect(try openEnvironment(path: path, options: options))
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        if let refusal = recognition.refusal {
            lock.discardIfCreated()
            throw .notALog(path: path, reason: refusal)
        }
        guard mkdir(staging, 0o755) == 0 else { throw stagingError(errno, path: path, doing: "creating \(staging)") }
        let source = open(path + "/data.mdb", O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw stagingError(errno, path: path, doing: "reading \(path)/data.mdb") }
        defer { close(source) }
        // Copied under another name, then renamed: until the last byte is there, its meta pages
        // name pages past its end, and a reader that opened it as `data.mdb` would fault on them.
        let partial = staging + "/" + copyingName
        let copy = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard copy >= 0 else { throw stagingError(errno, path: path, doing: "creating \(partial)") }
        defer { close(copy) }
        fchmod(copy, mode)
        var offset: off_t = 0
        while true {
            let sent = sendfile(copy, source, &offset, 1 << 30)
            if sent > 0 { continue }
            if sent == 0 { break }
            if errno == EINTR { continue }
            throw stagingError(errno, path: path, doing: "copying the log into \(partial)")
        }
        guard rename(partial, staging + "/data.mdb") == 0 else {
            throw stagingError(errno, path: path, doing: "renaming \(partial) to data.mdb")
        }
        return Int(offset)
    }

    /// The name the log's bytes are copied under in the staging folder until the copy is whole.
    static let copyingName = "data.mdb.copying"

    /// Removes a staged import's folder and the files LMDB and the log lock put in it. Something
    /// else at that name (a file, or a symbolic link, which is never followed) is removed itself.
    static func removeStagedImport(_ staging: String, log path: String) throws(FlowLogError) {
        var info = stat()
        guard lstat(staging, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            let spilled = staging + "/" + SpilledStreams.folderName
            for file in ["data.mdb", "lock.mdb"] { unlink(spilled + "/" + file) }
            rmdir(spilled)
            for file in ["data.mdb", copyingName, "lock.mdb", LogLock.fileName] { unlink(staging + "/" + file) }
            guard rmdir(staging) == 0 else { throw stagingError(errno, path: path, doing: "removing \(staging), left by an import that was stopped") }
        } else if unlink(staging) != 0 {
            throw stagingError(errno, path: path, doing: "removing \(staging), left by an import that was stopped")
        }
    }

    private static func stagingError(_ code: Int32, path: String, doing: String) -> FlowLogError {
        switch code {
        case EACCES, EPERM, EROFS: .permissionDenied(path: path)
        case ENOSPC, EDQUOT, EFBIG: .diskFull(path: path)
        default: .io(path: path, detail: "\(doing) failed: \(String(cString: strerror(code))); the log was not changed")
        }
    }

    private static func syncFolder(_ path: String) {
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}

/// The staged log as the import pipeline's target: its import commits in steps.
private struct StagedImportTarget: ImportTarget {
    let log: LMDBEventLog
    let pagesPerStep: Int

    func withImportSession(expectedBytes: Int, _ body: (any ImportSession) throws -> Int) throws -> Int {
        try log.withImportSession(expectedBytes: expectedBytes, pagesPerStep: pagesPerStep, body)
    }
}

extension FlowLogError {
    /// The same error about the log at `path`, where it names the staged copy: the user asked for
    /// `path`, and the copy is gone once the error is reported.
    fileprivate func naming(_ path: String, for staging: String) -> FlowLogError {
        func mapped(_ named: String) -> String { named.hasPrefix(staging) ? path : named }
        switch self {
        case .notFound(let named): return .notFound(path: mapped(named))
        case .notALog(let named, let reason): return .notALog(path: mapped(named), reason: reason)
        case .permissionDenied(let named): return .permissionDenied(path: mapped(named))
        case .newerSchema(let named, let found, let supported): return .newerSchema(path: mapped(named), found: found, supported: supported)
        case .diskFull(let named): return .diskFull(path: mapped(named))
        case .io(let named, let detail): return .io(path: mapped(named), detail: detail)
        default: return self
        }
    }
}
