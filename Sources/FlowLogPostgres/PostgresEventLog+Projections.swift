#if Network
    import Deciding
    import FlowLogBasics
    public import FlowLogStore
    import Foundation
    import PostgresNIO

    extension PostgresEventLog: SnapshotStore, FingerprintedLog {
        public static let defaultSnapshotInterval = AppendRules.defaultSnapshotInterval

        public func snapshotInterval() throws -> Int {
            try withSession { session in
                let rows = try session.query("SELECT value FROM \(unescaped: table("meta")) WHERE key = 'snapshotInterval'").rows
                return try rows.first.flatMap { Int(try $0.decode(String.self)) } ?? Self.defaultSnapshotInterval
            }
        }

        public func setSnapshotInterval(_ interval: Int) throws {
            precondition(interval >= 0)
            try requireWritable()
            try withSession { session in
                try session.query(
                    """
                    INSERT INTO \(unescaped: table("meta")) (key, value) VALUES ('snapshotInterval', \(String(interval)))
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                    """)
            }
        }

        public func snapshotCount() throws -> Int {
            try withSession { session in
                Int(try session.query("SELECT count(*) FROM \(unescaped: table("snapshots"))").rows[0].decode(Int64.self))
            }
        }

        public func forEachEventWithFingerprint(from: Int, through: Int?, _ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
            try walk(from: from, through: through, fingerprints: true, body)
        }
    }

    /// Checkpoints, failures and acknowledged marks are rows of `projections`, in the log's schema, so
    /// every process on every machine sees the same ones.
    extension PostgresEventLog: CheckpointStore {
        static let storageProjector = "storage"

        public func checkpoint(of projector: String) throws -> Int {
            try withSession { session in try Self.checkpoint(of: projector, session, table("projections")) }
        }

        static func checkpoint(of projector: String, _ session: PostgresSession, _ table: String, locking: Bool = false) throws -> Int {
            let rows = try session.query(
                """
                SELECT checkpoint FROM \(unescaped: table) WHERE projector = \(projector) \(unescaped: locking ? "FOR UPDATE" : "")
                """
            ).rows
            return try rows.first.map { Int(try $0.decode(Int64.self)) } ?? 0
        }

        /// Makes `projector`'s checkpoint writes carry `generation`, and this log's transactions end
        /// when idle inside a transaction for `idleTransactionTimeout` milliseconds (a paused holder's).
        func fence(_ projector: String, generation: Int64, idleTransactionTimeout: String) throws {
            try withSession { session in try session.set("idle_in_transaction_session_timeout", to: idleTransactionTimeout) }
            fences.withLock { $0[projector] = generation }
        }

        func unfence(_ projector: String) {
            _ = fences.withLock { $0.removeValue(forKey: projector) }
        }

        /// Throws `FlowLogError.busy` (the lease lost) unless `projector`'s lease is still at the
        /// generation this process holds, if it holds one; in a transaction, the lease's row is then
        /// share-locked until it ends, so a takeover waits for it (or for the server to end it).
        static func checkFence(_ projector: String, _ generation: Int64?, _ session: PostgresSession, leases: String) throws {
            guard let generation else { return }
            let current = try session.query("SELECT generation FROM \(unescaped: leases) WHERE projector = \(projector) FOR SHARE").rows.first
                .map { try $0.decode(Int64.self) }
            guard current == generation else {
                throw FlowLogError.busy(ProjectorBusy(projector: projector, pid: nil, lost: true))
            }
        }

        static func setCheckpoint(_ position: Int, of projector: String, _ session: PostgresSession, _ table: String) throws {
            try session.query(
                """
                INSERT INTO \(unescaped: table) (projector, checkpoint) VALUES (\(projector), \(Int64(position)))
                ON CONFLICT (projector) DO UPDATE SET checkpoint = EXCLUDED.checkpoint
                """)
        }

        public func setCheckpoint(_ position: Int, of projector: String) throws {
            let fence = fences.withLock { $0[projector] }
            guard fence != nil else {
                try withSession { session in try Self.setCheckpoint(position, of: projector, session, table("projections")) }
                return
            }
            try inTransaction { session in
                try Self.checkFence(projector, fence, session, leases: table("leases"))
                try Self.setCheckpoint(position, of: projector, session, table("projections"))
            }
        }

        public func acknowledgedPosition(of projector: String) throws -> Int {
            try withSession { session in
                let rows = try session.query("SELECT acknowledged FROM \(unescaped: table("projections")) WHERE projector = \(projector)").rows
                return try rows.first.map { Int(try $0.decode(Int64.self)) } ?? 0
            }
        }

        /// Checkpoint back to 0 and the acknowledged mark moved to the furthest of itself and the
        /// checkpoint (or 0 when `resending`), in one statement.
        public func rewindTracker(_ projector: String, resending: Bool) throws {
            try withSession { session in
                try session.query(
                    """
                    INSERT INTO \(unescaped: table("projections")) AS p (projector, checkpoint, acknowledged) VALUES (\(projector), 0, 0)
                    ON CONFLICT (projector) DO UPDATE SET checkpoint = 0,
                        acknowledged = CASE WHEN \(resending) THEN 0 ELSE greatest(p.acknowledged, p.checkpoint) END
                    """)
            }
        }

        public func setProjectionStatus(_ projector: String, failure: String?) throws {
            try withSession { session in
                try session.query(
                    """
                    INSERT INTO \(unescaped: table("projections")) (projector, failure) VALUES (\(projector), \(failure))
                    ON CONFLICT (projector) DO UPDATE SET failure = EXCLUDED.failure
                    """)
            }
        }

        public func projectionStatus(of names: [String]) throws -> [ProjectionStatus] {
            let last = try lastPosition()
            let rows: [String: (Int, String?)] = try withSession { session in
                var found: [String: (Int, String?)] = [:]
                for row in try session.query(
                    "SELECT projector, checkpoint, failure FROM \(unescaped: table("projections")) WHERE projector = ANY(\(names))"
                ).rows {
                    let (name, checkpoint, failure) = try row.decode((String, Int64, String?).self)
                    found[name] = (Int(checkpoint), failure)
                }
                return found
            }
            return names.map { name in
                let (checkpoint, failure) = rows[name] ?? (0, nil)
                return ProjectionStatus(name: name, checkpoint: checkpoint, lag: last - checkpoint, failure: failure)
            }
        }

        /// A session-level advisory lock held on a connection of the lease's own: it lasts while the
        /// lease lives (or its process, or its connection), whichever machine the runner is on.
        public func leaseProjector(_ name: String) throws -> any ProjectorLease {
            try PostgresProjectorLease(projector: name, log: self, timeout: nil)
        }

        public func leaseProjector(_ name: String, expiringAfter timeout: Double) throws -> any ProjectorLease {
            try PostgresProjectorLease(projector: name, log: self, timeout: timeout)
        }

        /// The leases whose advisory lock some session holds now (`pg_locks`, this database), with
        /// the holder the `leases` table records; one query, whichever machines hold them.
        public func leaseHolders(of names: [String]) throws -> [String: LeaseHolder] {
            let keys = names.map { schema.leaseLock($0) }
            // The generation came with log schema 5; an older log's table has no such column.
            let generation = try settings().logSchema >= RecordLayout.tracedLogSchema ? "l.generation" : "NULL::bigint"
            return try withSession { session in
                var holders: [String: LeaseHolder] = [:]
                for row in try session.query(
                    """
                    SELECT n.projector, l.pid, l.host, \(unescaped: generation)
                    FROM unnest(\(names), \(keys)) AS n(projector, key)
                    LEFT JOIN \(unescaped: table("leases")) l ON l.projector = n.projector
                    WHERE EXISTS (
                        SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
                        AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND ((k.classid::bigint << 32) | k.objid::bigint) = n.key)
                    """
                ).rows {
                    let (name, pid, host, generation) = try row.decode((String, Int32?, String?, Int64?).self)
                    holders[name] = LeaseHolder(pid: pid, host: host, generation: generation.map(Int.init))
                }
                return holders
            }
        }
    }

    /// The storage projector's read models as plain tables beside the log, for analysts' `SELECT`s:
    /// `orders` (one row per kept row: position, stream and the domain's declared columns: order_id,
    /// total, item_count), `stream_states` (each stream's version, the declared columns: cart status
    /// and total, `hasOnboarded`, and the whole state as bytes) and
    /// `local_storage` (the app's key → flag store), written in one transaction with the `storage` checkpoint.
    extension PostgresEventLog: ReadModelStore {
        public func updateReadModels(_ body: (any ReadModelTransaction) throws -> Void) throws {
            try inTransaction { session in
                let transaction = try PostgresReadModelTransaction(
                    session: session, schema: schema, fence: fences.withLock { $0[Self.storageProjector] })
                try body(transaction)
                try transaction.flush()
            }
        }

        public func resetReadModels() throws {
            try inTransaction { session in
                _ = try session.queries([
                    "DELETE FROM \(unescaped: table("orders"))",
                    "DELETE FROM \(unescaped: table("stream_states"))",
                    "DELETE FROM \(unescaped: table("local_storage"))",
                ])
                try Self.setCheckpoint(0, of: Self.storageProjector, session, table("projections"))
            }
        }

        public func readModelState(of stream: String) throws -> (state: StreamState, version: Int)? {
            try withSession { session in
                let rows = try session.query(
                    """
                    SELECT (SELECT coalesce(max(position), 0) FROM \(unescaped: table("events"))),
                           (SELECT checkpoint FROM \(unescaped: table("projections")) WHERE projector = \(Self.storageProjector)),
                           s.version, s.state
                    FROM (SELECT 1) AS one LEFT JOIN \(unescaped: table("stream_states")) s ON s.stream = \(stream)
                    """
                ).rows
                let (last, checkpoint, version, bytes) = try rows[0].decode((Int64, Int64?, Int64?, ByteBuffer?).self)
                guard (checkpoint ?? 0) == last else { return nil }
                guard let version, let bytes else { return (StreamState.initial, 0) }
                guard let state = bytes.withUnsafeReadableBytes({ StreamState.decode($0) }) else { return nil }
                return (state, Int(version))
            }
        }

        public func readModelRows(stream: String?) throws -> [(position: Int, stream: String, row: KeptRow)] {
            let types = KeptRow.columns.map(\.type)
            return try withSession { session in
                try session.query(
                    """
                    SELECT position, stream, \(unescaped: Self.keptRowColumnList) FROM \(unescaped: table("orders"))
                    WHERE \(stream == nil) OR stream = \(stream ?? "") ORDER BY position
                    """
                ).rows.compactMap { row in
                    let cells = Array(row)
                    let (position, owner) = (try cells[0].decode(Int64.self), try cells[1].decode(String.self))
                    return KeptRow(columnValues: try ReadModelSQL.values(cells.dropFirst(2), types)).map { (Int(position), owner, $0) }
                }
            }
        }

        /// The kept rows' declared columns, comma-separated, for `SELECT` and `INSERT`.
        static var keptRowColumnList: String { KeptRow.columns.map { "\($0.name)" }.joined(separator: ", ") }

        public func readModelFlag(stream: String) throws -> Bool? {
            try withSession { session in
                try session.query("SELECT value FROM \(unescaped: table("local_storage")) WHERE key = \(stream)").rows.first.map {
                    try $0.decode(Bool.self)
                }
            }
        }

        /// The three tables as text lines in key order: what a rebuild must reproduce exactly.
        public func readModelDump() throws -> [UInt8] {
            try withSession { session in
                var text = ""
                for row in try session.query("SELECT stream, version, encode(state, 'hex') FROM \(unescaped: table("stream_states")) ORDER BY stream")
                    .rows
                {
                    let (stream, version, state) = try row.decode((String, Int64, String).self)
                    text += "state \(stream) \(version) \(state)\n"
                }
                let types = KeptRow.columns.map(\.type)
                for row in try session.query(
                    "SELECT position, stream, \(unescaped: Self.keptRowColumnList) FROM \(unescaped: table("orders")) ORDER BY position"
                ).rows {
                    let cells = Array(row)
                    let (position, stream) = (try cells[0].decode(Int64.self), try cells[1].decode(String.self))
                    let values = try ReadModelSQL.values(cells.dropFirst(2), types).map(\.description)
                    text += "order \(position) \(stream) \(values.joined(separator: " "))\n"
                }
                for row in try session.query("SELECT key, value FROM \(unescaped: table("local_storage")) ORDER BY key").rows {
                    let (key, value) = try row.decode((String, Bool).self)
                    text += "flag \(key) \(value)\n"
                }
                return Array(text.utf8)
            }
        }
    }
#endif
