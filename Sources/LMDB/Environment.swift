import CLMDB
import CLMDBGuard
public import FlowLogSystem

/// An open LMDB environment: one memory map over one folder (`data.mdb` and `lock.mdb`).
///
/// Open one per process and keep it for the process's life; LMDB's own lock file lets many processes
/// share one environment, with one writer at a time. The environment is opened with `MDB_NOTLS`, so
/// read transactions are not tied to threads.
///
/// ```swift
/// let env = try Environment(path: "/tmp/log.lmdb", maxDatabases: 8)
/// let db = try env.write { try $0.openDatabase(named: "events", create: true) }
/// try env.write { txn in try txn.put(db, key: [1], value: [42]) }
/// let value = try env.read { txn in try txn.get(db, key: [1]).map(Array.init) }
/// ```
public final class Environment {
    public struct Options: Sendable {
        public var maxDatabases: UInt32 = 16
        public var maxReaders: UInt32 = 126
        /// The first map size; the map grows (doubling) whenever a write meets `MDB_MAP_FULL`.
        public var initialMapSize: Int = 1 << 30
        public var readOnly = false
        /// `MDB_NOLOCK`: no lock file and no reader table. Only for reading an environment whose
        /// lock file cannot be written (a read-only folder or file); a writer that changes it
        /// meanwhile may reuse pages such a reader is reading.
        public var noLock = false
        public var fileMode: FlowLogSystem.mode_t = 0o644

        public init() {}
    }

    let handle: OpaquePointer
    public let path: String
    private let readOnly: Bool
    /// Held by every resize of the map, and shared by `readBesideWriter`.
    private let remapping = RemapLock()
    /// Where the map is, for the bounds each transaction checks what it reads against.
    private let location = MapLocation()

    public init(path: String, options: Options = Options()) throws(LMDBError) {
        flowlog_guard_install()
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(code: ENOMEM, operation: "mdb_env_create") }
        do {
            try check(mdb_env_set_maxdbs(env, options.maxDatabases), "mdb_env_set_maxdbs")
            try check(mdb_env_set_maxreaders(env, options.maxReaders), "mdb_env_set_maxreaders")
            try check(mdb_env_set_mapsize(env, options.initialMapSize), "mdb_env_set_mapsize")
            var flags = UInt32(MDB_NOTLS)
            if options.readOnly { flags |= UInt32(MDB_RDONLY) }
            if options.noLock { flags |= UInt32(MDB_NOLOCK) }
            try Self.checkMetaPages(file: path + "/data.mdb", path: path)
            try check(mdb_env_open(env, path, flags, options.fileMode), "opening the LMDB environment at \(path)")
            try Self.checkFileHoldsLastCommit(env, path: path)
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.handle = env
        self.path = path
        self.readOnly = options.readOnly
    }

    deinit { mdb_env_close(handle) }

    /// Refuses a data file shorter than the pages its last commit uses (`MDB_CORRUPTED`): a copy
    /// that did not finish, or a file cut short. LMDB reads pages through the map, and a page
    /// past the file's end is a `SIGBUS` that kills the process, where this is an error to report.
    /// A file only grows while it is in use (a writer writes a commit's pages before its meta
    /// page), so a file that passes this check at opening keeps passing it.
    private static func checkFileHoldsLastCommit(_ env: OpaquePointer, path: String) throws(LMDBError) {
        var info = MDB_envinfo()
        var database = MDB_stat()
        var descriptor: Int32 = -1
        try check(mdb_env_info(env, &info), "reading the environment's last page")
        try check(mdb_env_stat(env, &database), "reading the environment's page size")
        try check(mdb_env_get_fd(env, &descriptor), "reading the environment's data file")
        var file = stat()
        guard fstat(descriptor, &file) == 0 else { throw LMDBError(code: errno, operation: "reading the size of \(path)/data.mdb") }
        let (pages, tooMany) = UInt(bitPattern: info.me_last_pgno).addingReportingOverflow(1)
        let (bytes, tooLarge) = pages.multipliedReportingOverflow(by: UInt(database.ms_psize))
        let needed = tooMany || tooLarge || bytes > UInt(Int.max) ? Int.max : Int(bytes)
        guard Int(file.st_size) < needed else { return }
        throw LMDBError(
            code: MDB_CORRUPTED, operation: "opening the LMDB environment at \(path)",
            detail: """
                data.mdb holds \(file.st_size) bytes, but its last commit uses \(needed): the file was cut short, as by a copy \
                that did not finish; restore it from a backup, or copy it again from its source
                """)
    }

    /// The current size of the memory map in bytes (the upper bound of the data file's size).
    public var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    /// The data file (`mdb_env_get_fd`); `nil` when LMDB reports none.
    public var dataFile: DataFile? {
        var descriptor: Int32 = -1
        guard mdb_env_get_fd(handle, &descriptor) == 0, descriptor >= 0 else { return nil }
        return DataFile(descriptor: descriptor)
    }

    /// An environment's data file, for work beside a commit on another thread (FlowLogLMDB's
    /// `CommitWriteback`). Valid while the environment is open.
    public struct DataFile: Sendable {
        let descriptor: Int32

        /// Asks the kernel to start writing the file's dirty pages back, without waiting for it
        /// (Linux's `sync_file_range(…, SYNC_FILE_RANGE_WRITE)`). Errors (a file system without
        /// writeback, say) only mean nothing was started early.
        public func startWriteback() {
            _ = sync_file_range(descriptor, 0, 0, 2)  // SYNC_FILE_RANGE_WRITE
        }
    }

    /// Runs `body` in a read-only transaction: a consistent snapshot of the whole environment,
    /// unaffected by writers until it ends.
    public func read<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        try read(adoptingResize: true, body)
    }

    private func read<Result>(adoptingResize: Bool, _ body: (Transaction) throws -> Result) throws -> Result {
        let transaction = try begin(flags: UInt32(MDB_RDONLY), adoptingResize: adoptingResize)
        defer { mdb_txn_abort(transaction.handle) }
        return try body(transaction)
    }

    /// `read`, for a thread that reads while another of this process writes (and may resize the
    /// map): the map stays in place until `body` returns (`RemapLock`). A map another process grew
    /// is not adopted here, since this process may have transactions open: `MDB_MAP_RESIZED` is
    /// thrown instead, and the writer's thread adopts the size when it next begins one.
    public func readBesideWriter<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        try remapping.reading { try read(adoptingResize: false, body) }
    }

    /// Runs `body` in a write transaction and commits it; throws and writes nothing if `body` throws.
    ///
    /// When the map is full, the transaction is rolled back, the map doubled and `body` run again,
    /// so `body` must compute its writes from what it reads in the transaction (it usually does).
    /// A commit returns only once the data is on disk (LMDB's default synchronous mode).
    public func write<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        try write(retryingWhenMapIsFull: true, body)
    }

    /// As `write(_:)`; with `retryingWhenMapIsFull` false, a full map is thrown (after growing the
    /// map for next time) instead of running `body` again, for bodies that consume input as they go.
    /// `aroundCommit` is handed the commit (LMDB writing the pages and syncing them) to run, once, for
    /// a caller that works beside it while it runs (FlowLogLMDB's `CommitWriteback`, for an import).
    /// Without `growingMap`, a full map is thrown as it is: growing it needs every other transaction
    /// of the process closed, which a writer on a thread of its own (while another reads) cannot know.
    public func write<Result>(
        retryingWhenMapIsFull: Bool, growingMap: Bool = true, aroundCommit: (_ commit: () -> Void) -> Void = { $0() },
        _ body: (Transaction) throws -> Result
    ) throws -> Result {
        while true {
            let transaction = try begin(flags: 0)
            let result: Result
            do {
                result = try body(transaction)
            } catch let error as LMDBError where error.isMapFull && growingMap {
                mdb_txn_abort(transaction.handle)
                try grow()
                if retryingWhenMapIsFull { continue }
                throw error
            } catch {
                mdb_txn_abort(transaction.handle)
                throw error
            }
            // A commit frees the transaction whatever it returns: never abort it after this point.
            // The commit runs exactly once: never run, the transaction would hold the writer's
            // lock for good; run twice, it would commit a freed transaction.
            var committed: Int32?
            aroundCommit {
                precondition(committed == nil, "aroundCommit ran the commit twice")
                committed = mdb_txn_commit(transaction.handle)
            }
            guard let code = committed else { preconditionFailure("aroundCommit did not run the commit") }
            if code == MDB_MAP_FULL, growingMap {
                try grow()
                if retryingWhenMapIsFull { continue }
            }
            try check(code, "committing a write transaction")
            return result
        }
    }

    /// Flushes buffers to disk; only needed by callers that turned synchronous commits off.
    public func sync() throws(LMDBError) {
        try check(mdb_env_sync(handle, 1), "mdb_env_sync")
    }

    /// Turns LMDB's sync at each commit off (`MDB_NOSYNC`) or back on, for this process's handle.
    /// Without it a crash may lose the last commits or leave the file damaged: only for an
    /// environment nobody else uses and that is thrown away unless `sync()` completes (an
    /// import's staged copy, synced once at its end).
    public func setSynchronousCommits(_ synchronous: Bool) throws(LMDBError) {
        try check(mdb_env_set_flags(handle, UInt32(MDB_NOSYNC), synchronous ? 0 : 1), "mdb_env_set_flags")
    }

    func begin(flags: UInt32, adoptingResize: Bool = true) throws(LMDBError) -> Transaction {
        var attempts = 0
        while true {
            var txn: OpaquePointer?
            let code = mdb_txn_begin(handle, nil, flags, &txn)
            if code == MDB_MAP_RESIZED, adoptingResize, attempts < 3 {
                // Another process grew the map: adopt its size and try again.
                attempts += 1
                try setMapSize(0, "adopting the grown map size")
                continue
            }
            try check(code, flags & UInt32(MDB_RDONLY) != 0 ? "beginning a read transaction" : "beginning a write transaction")
            let readOnly = flags & UInt32(MDB_RDONLY) != 0
            // After the begin: the last page the newest meta names is then at or past this snapshot's.
            return Transaction(handle: txn!, isReadOnly: readOnly, bounds: location.bounds(handle, writing: !readOnly))
        }
    }

    /// Grows the map to at least `bytes` (never shrinks it). Call it with no transaction open in this process.
    public func ensureMapSize(atLeast bytes: Int) throws(LMDBError) {
        guard bytes > mapSize else { return }
        try setMapSize(bytes, "growing the map to \(bytes) bytes")
    }

    func grow() throws(LMDBError) {
        let doubled = mapSize * 2
        try setMapSize(doubled, "growing the map to \(doubled) bytes")
    }

    /// Every resize of this process's map (0: adopt the size another process set), once no read
    /// beside the writer is under way (`RemapLock`).
    private func setMapSize(_ bytes: Int, _ operation: @autoclosure () -> String) throws(LMDBError) {
        try remapping.resizing { () throws(LMDBError) in
            defer { location.forget() }
            try check(mdb_env_set_mapsize(handle, bytes), operation())
        }
    }
}

extension Environment {
    /// Opens named databases in a transaction of their own and commits it, which LMDB requires for the
    /// handles to outlive the transaction. With `create`, missing databases are created (a write).
    public func openDatabases(named names: [String], create: Bool) throws -> [Database] {
        if create {
            return try write { txn in try names.map { try txn.openDatabase(named: $0, create: true) } }
        }
        var txn: OpaquePointer?
        try check(mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn), "beginning a read transaction")
        let transaction = Transaction(handle: txn!, isReadOnly: true, bounds: location.bounds(handle, writing: false))
        do {
            let databases = try names.map { try transaction.openDatabase(named: $0, create: false) }
            try check(mdb_txn_commit(txn), "committing the opening of databases")
            return databases
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
    }
}
