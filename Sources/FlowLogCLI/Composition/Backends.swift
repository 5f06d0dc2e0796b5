import FlowLogBasics
import FlowLogHistory
import FlowLogLMDB
import FlowLogStore
import FlowLogSystem

#if Network
    import FlowLogPostgres
#endif

/// Which backend a `--db` value names: a `postgres://` or `postgresql://` URL is a PostgreSQL log
/// (a schema of a database), anything else an LMDB folder. The one place that knows both.
enum Backend {
    case lmdb(path: String)
    case postgres(url: String)

    init(_ location: String) {
        let lowered = location.lowercased()
        self = lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") ? .postgres(url: location) : .lmdb(path: location)
    }

    func open(access: LogAccess) throws -> any LogStore {
        switch self {
        case .lmdb(let path):
            return try LMDBEventLog(path: path, access: access)
        case .postgres(let url):
            #if Network
                var options = PostgresEventLog.Options()
                // An import or a copy into PostgreSQL sets the streams it stops holding aside on local
                // disk, so that its memory does not grow with the number of sessions (docs/memory.md).
                options.importSpill = { try SpilledStreams.temporary() }
                // For tests: so few streams held that a modest import sets some aside.
                if let held = Self.testNumber("FLOWLOG_TEST_IMPORT_STREAMS_HELD") { options.importStreamsHeld = held }
                return try PostgresEventLog.open(url: url, access: access, options: options)
            #else
                throw CLIFailure(
                    "This flowlog was built without PostgreSQL (the package's Network trait is off); build the whole flowlog with `scripts/build` to open \(Backend.redacted(url)).",
                    .usage)
            #endif
        }
    }

    /// A number a test sets in the environment to make an import take small steps or hold few streams.
    private static func testNumber(_ name: String) -> Int? { getenv(name).flatMap { Int(String(cString: $0)) } }

    /// `flowlog compact`: LMDB's compacting copy swapped in under the log lock, or PostgreSQL's
    /// `VACUUM FULL` of the log's tables.
    func compact() throws -> LogCompaction {
        switch self {
        case .lmdb(let path):
            return try LMDBEventLog.compact(path: path)
        case .postgres(let url):
            #if Network
                let log = try PostgresEventLog.open(url: url, access: .readWrite)
                defer { log.close() }
                return try log.compact()
            #else
                throw CLIFailure(
                    "This flowlog was built without PostgreSQL (the package's Network trait is off); build the whole flowlog with `scripts/build` to compact \(Backend.redacted(url)).",
                    .usage)
            #endif
        }
    }

    /// `flowlog import`: into LMDB through `LMDBEventLog.importNDJSON(intoLogAt:…)`, which stages a
    /// large import so that its memory stays bounded; into PostgreSQL through the opened log's
    /// import (one transaction on the server). Returns the events imported and the log's location.
    func importNDJSON(from reader: consuming LineReader, expectedBytes: Int, progress: Progress?) throws -> (count: Int, location: String) {
        switch self {
        case .lmdb(let path):
            // For tests: every import staged, in steps this small, so that a modest one takes several.
            if let steps = Self.testNumber("FLOWLOG_TEST_IMPORT_STEP_PAGES") {
                return (
                    try LMDBEventLog.importNDJSON(
                        intoLogAt: path, from: reader, expectedBytes: expectedBytes, progress: progress,
                        pagesPerStep: steps, inPlaceLimit: 0), path
                )
            }
            return (try LMDBEventLog.importNDJSON(intoLogAt: path, from: reader, expectedBytes: expectedBytes, progress: progress), path)
        case .postgres:
            let log = try open(access: .readWriteCreating)
            return (try log.importNDJSON(from: reader, expectedBytes: expectedBytes, progress: progress), log.location)
        }
    }

    /// `flowlog copy` into this log, after `check` accepted it open (empty): into LMDB staged as
    /// `flowlog import` is (`LMDBEventLog.importEvents(intoLogAt:…)`, so that its memory stays
    /// bounded), the log closed first so that the import may take it exclusively; into PostgreSQL
    /// through the opened log's import. Returns the events copied and the log's location.
    func copy(from source: any EventLog, progress: Progress?, checking check: (any LogStore) throws -> Void) throws -> (count: Int, location: String)
    {
        let destination = try open(access: .readWriteCreating)
        try check(destination)
        guard case .lmdb(let path) = self else {
            return (try LogCopy.copy(from: source, to: destination, progress: progress), destination.location)
        }
        if let from = source.capabilities.snapshots, let to = destination.capabilities.snapshots {
            try to.setSnapshotInterval(try from.snapshotInterval())
        }
        let location = destination.location
        _ = consume destination
        let count = try LMDBEventLog.importEvents(intoLogAt: path) { sink in try LogCopy.feed(source, into: sink, progress: progress) }
        progress?.finish()
        return (count, location)
    }

    /// Whether anything is there yet: a folder for LMDB; a PostgreSQL log is taken to exist (its
    /// tables are created by its first write, in the same transaction).
    var exists: Bool {
        switch self {
        case .lmdb(let path):
            var info = stat()
            return stat(path, &info) == 0
        case .postgres:
            return true
        }
    }

    /// A URL as messages may show it: without its password.
    static func redacted(_ location: String) -> String {
        #if Network
            return PostgresURL.redact(location)
        #else
            guard let at = location.firstIndex(of: "@"), let scheme = location.range(of: "://"),
                let colon = location[scheme.upperBound..<at].firstIndex(of: ":")
            else { return location }
            return String(location[..<location.index(after: colon)]) + "…" + String(location[at...])
        #endif
    }
}
