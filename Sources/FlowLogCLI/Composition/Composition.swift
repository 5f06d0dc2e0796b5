import Deciding
import FlowLog
import FlowLogBasics
import FlowLogHistory
import FlowLogLMDB
import FlowLogProjectors
import FlowLogStore
import FlowLogSystem

/// Builds the concrete objects the subcommands work with: the one place that names a backend.
enum Composition {
    /// The log at `--db`: an LMDB folder, or a PostgreSQL log for a `postgres://` URL.
    static func openLog(_ options: LogOptions, access: LogAccess) throws -> any LogStore {
        try Backend(options.logPath).open(access: access)
    }

    /// The log `flowlog serve` serves: created when missing, and mapped large from the start
    /// (`openMappedLarge`).
    static func openServedLog(_ options: LogOptions) throws -> any LogStore {
        try openMappedLarge(options, access: .readWriteCreating)
    }

    /// A log that a writer appends to while reads run beside it (`serve`'s reader threads, `send`'s
    /// look-ahead), mapped large from the start. LMDB may move its map only when no transaction of
    /// the process is open: a 64 GiB map (address space, not disk) means it never has to grow under
    /// them. Grown instead, the commits written beside the reads failed for want of room and were
    /// decided and written again, and a `send` of millions of sessions kept more memory after each
    /// growth, to its end (docs/memory.md). A PostgreSQL log is opened as any writer opens it.
    static func openMappedLarge(_ options: LogOptions, access: LogAccess) throws -> any LogStore {
        switch Backend(options.logPath) {
        case .lmdb(let path): try LMDBEventLog(path: path, access: access, initialMapSize: 1 << 36)
        case .postgres: try Backend(options.logPath).open(access: access)
        }
    }

    /// What a killed `backup` leaves in its folder, which the next one may replace.
    static let partialBackupName = LMDBEventLog.partialBackupName

    /// `flowlog import` into the log at `--db`, created when missing (`Backend.importNDJSON`).
    static func importNDJSON(
        _ options: LogOptions, from reader: consuming LineReader, expectedBytes: Int,
        progress: Progress?
    ) throws -> (count: Int, location: String) {
        try Backend(options.logPath).importNDJSON(from: reader, expectedBytes: expectedBytes, progress: progress)
    }

    /// Whether anything is at `--db` yet.
    static func logExists(_ options: LogOptions) -> Bool { Backend(options.logPath).exists }

    /// Removes the log a refused import created at `--db`, so that it leaves nothing behind (an
    /// import into PostgreSQL is one transaction, so a refused one leaves nothing already).
    static func removeCreatedLog(_ options: LogOptions) {
        guard case .lmdb(let path) = Backend(options.logPath) else { return }
        removeLogFiles(path)
    }

    /// Removes a log folder this process created, with the files LMDB and the log lock put in it.
    static func removeLogFiles(_ path: String) {
        for file in ["data.mdb", "lock.mdb", LogLock.fileName] { unlink(path + "/" + file) }
        rmdir(path)
    }

    /// Where `replay` and `bisect` read: the NDJSON file of `--file`, or the log; and what it holds.
    static func replaySource(_ source: SourceOptions, _ options: LogOptions) throws -> (
        source: any ReplaySource, log: (any LogStore)?, scope: ReadingScope
    ) {
        if let path = source.file {
            let file = try NDJSONFileSource(path: path, allowingGaps: source.allowGaps)
            return (file, nil, ReadingScope(file: file))
        }
        let log = try openLog(options, access: .readOnly)
        return (log, log, try ReadingScope(log: log, options: options))
    }

    /// The daily run of `log`'s retention, on the system clock, reporting to standard error as
    /// diagnostics do; the forgotten sessions' lines leave the trackers' files in `trackerFolder`.
    static func retentionSchedule(for log: any LogStore, trackerFolder: String?, clock: any WallClock = SystemClock()) -> RetentionSchedule {
        RetentionSchedule(
            log: log, clock: clock,
            beforeBatch: { streams in
                if let trackerFolder { try Program.forgetInProjectorFiles(streams: Set(streams), folder: trackerFolder) }
            }, report: { Diagnostics.write($0) })
    }

    /// The command pipeline on `log`, with the system clock and UUIDv7 event ids.
    static func processor(for log: any EventLog) -> CommandProcessor {
        let clock = SystemClock()
        return CommandProcessor(log: log, clock: clock, ids: UUIDv7Generator(clock: clock))
    }
}
