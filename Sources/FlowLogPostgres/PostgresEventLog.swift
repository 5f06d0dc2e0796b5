#if Network
    public import FlowLogBasics
    public import FlowLogStore
    public import Foundation
    import PostgresNIO
    import Synchronization

    /// The event log in PostgreSQL: one log for many machines, with the contract of every backend
    /// (`AppendRules` decide, positions 1, 2, 3… gap-free for every reader) and every capability of
    /// `LogStore`. The tables live in one PostgreSQL schema (`?schema=`, default `flowlog`), so several
    /// logs can share a database; docs/postgres.md describes them and the design.
    ///
    /// The core is synchronous: each log object owns one connection (its own PostgreSQL session) and
    /// waits for its answers on the calling thread, never on an event loop, and never longer than
    /// `Options.operationTimeout`, so a server that stops answering fails a command instead of hanging
    /// it. Calls are serialised per object (one transaction at a time on its connection); open one log
    /// object per thread that should write concurrently. A connection that was lost is opened again by
    /// the next call; a transaction it was in is gone (and was not acknowledged).
    ///
    /// Unchecked `Sendable`: the session and append state are guarded by a recursive lock (calls nest), which `Mutex` is not.
    public final class PostgresEventLog: EventLog, @unchecked Sendable {
        public struct Options: Sendable {
            /// Seconds to wait for one answer of the server (a COPY batch counts as one), after which the
            /// call fails with `.io` and the connection is dropped.
            public var operationTimeout: Double = 60
            /// Seconds between checks of the last position while following, should a notification be
            /// lost (a dropped connection, a NOTIFY queue overflow).
            public var followPollInterval: Double = 1
            /// Where an import sets aside the streams it stops holding, so that its memory does not
            /// grow with the number of streams (`ImportStreamSpill`); `nil`: it holds every stream it
            /// meets. The composition root hands one on local disk (FlowLogLMDB's `SpilledStreams`).
            package var importSpill: (@Sendable () throws -> any ImportStreamSpill)?
            /// How many streams an import with a spill holds (`ImportPreparation.streamsHeld`; tests set it low).
            package var importStreamsHeld = ImportPreparation.streamsHeld
            public init() {}
        }

        public static let logSchemaVersion = PostgresSchema.version

        public let url: PostgresURL
        public let options: Options
        /// The log's URL without its password: what every message names.
        public var location: String { url.redacted }

        /// Everything but a backup of its own (the server's tools make those; `export` is the portable
        /// one). Forgetting is offered at every schema: below 3, `forget` refuses and names `flowlog upgrade`.
        public var capabilities: LogCapabilities {
            LogCapabilities(
                snapshots: self, batchReading: self, deferredCommits: self, following: self, backup: nil,
                forgetting: self, keptRowRepair: nil, predictedAppends: nil, prefetching: nil, eventIds: self,
                newestLogSchema: PostgresSchema.version, keepsRowsApart: false)
        }
        let schema: PostgresSchema
        let session: PostgresSession
        let access: LogAccess
        /// One transaction (or one statement) at a time on the connection. Recursive: a transaction's
        /// body reads through `withSession` again, holding it.
        let lock = NSRecursiveLock()
        /// What `LISTEN` has heard: the highest position an appending transaction announced.
        let notifications = NotificationBox()
        /// The generation of each lease this process holds with an expiry, by projector: its
        /// checkpoint writes are refused once the lease's generation has moved on (`PostgresProjectorLease`).
        let fences = Mutex<[String: Int64]>([:])
        var listening = false
        /// What appends keep between calls: their encoder, a commit in flight, the head they predict.
        var appending = AppendingState()

        /// Opens the log that `url` names (`postgres://…` or `postgresql://…`). `.readWriteCreating`
        /// creates its tables (in one transaction) when its schema holds none; no access ever creates the
        /// database or touches tables FlowLog did not create.
        public static func open(
            url: String, access: LogAccess, options: Options = Options(),
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) throws(FlowLogError) -> PostgresEventLog {
            try PostgresEventLog(url: try PostgresURL(url, environment: environment), access: access, options: options)
        }

        public init(url: PostgresURL, access: LogAccess = .readWriteCreating, options: Options = Options()) throws(FlowLogError) {
            self.url = url
            self.options = options
            self.access = access
            schema = PostgresSchema(url.schema)
            session = PostgresSession(url: url, timeout: options.operationTimeout)
            do throws(FlowLogError) {
                switch try schema.recognise(session, location: url.redacted) {
                case .log:
                    break
                case .empty:
                    guard access == .readWriteCreating else { throw .notFound(path: url.redacted) }
                    try schema.create(session, location: url.redacted)
                }
            } catch {
                session.close()
                throw error
            }
        }

        deinit { session.close() }

        /// Closes the connection; the object must not be used afterwards.
        public func close() {
            lock.withLock {
                try? settleCommit()
                session.close()
            }
        }

        func table(_ name: String) -> String { schema.table(name) }

        /// Runs `body` holding the connection; errors become `FlowLogError`.
        @discardableResult
        func withSession<Result>(_ body: (PostgresSession) throws -> Result) throws -> Result {
            try lock.withLock {
                // Nothing runs after an append whose commit failed, and nothing reports on it before it is settled.
                try settleCommit()
                do {
                    return try body(session)
                } catch let error as FlowLogError {
                    throw error
                } catch let damage as RecordDamage {
                    throw FlowLogError.damaged(damage)
                } catch let refusal as ForgetRefusal {
                    throw refusal
                } catch {
                    throw PostgresErrors.map(error, url: url, during: "reading the log")
                }
            }
        }

        /// Runs `body` inside one transaction (`BEGIN` … `COMMIT`), rolled back when it throws.
        func inTransaction<Result>(_ body: (PostgresSession) throws -> Result) throws -> Result {
            try withSession { session in
                try session.query("BEGIN")
                do {
                    let result = try body(session)
                    try session.query("COMMIT")
                    return result
                } catch {
                    if session.connection != nil { _ = try? session.query("ROLLBACK") }
                    throw error
                }
            }
        }

        func requireWritable() throws {
            if access == .readOnly {
                throw FlowLogError.permissionDenied(path: location)
            }
        }

        // MARK: Reading

        /// The last position and its chain hash, as the transaction (or statement) sees them.
        func head(_ session: PostgresSession) throws -> (position: Int, hash: UInt64) {
            let rows = try session.query("SELECT position, record FROM \(unescaped: table("events")) ORDER BY position DESC LIMIT 1").rows
            guard let row = rows.first else { return (0, RecordCodec.genesisHash) }
            let (position, record) = try row.decode((Int64, ByteBuffer).self)
            guard let hash = record.withUnsafeReadableBytes({ RecordCodec.storedHash(of: $0) }) else {
                throw FlowLogError.damaged(RecordDamage(position: Int(position), stream: nil, problem: "the record is truncated"))
            }
            return (Int(position), hash)
        }

        public func lastPosition() throws -> Int {
            try withSession { session in
                let rows = try session.query("SELECT coalesce(max(position), 0) FROM \(unescaped: table("events"))").rows
                return Int(try rows[0].decode(Int64.self))
            }
        }

        public func version(of stream: String) throws -> Int {
            try withSession { session in
                let rows = try session.query("SELECT version FROM \(unescaped: table("streams")) WHERE stream = \(stream)").rows
                return try rows.first.map { Int(try $0.decode(Int64.self)) } ?? 0
            }
        }

        public func receipt(stream: String, commandId: String) throws -> CommandReceipt? {
            try withSession { session in
                let rows = try session.query(
                    """
                    SELECT first_position, event_count, version, command_fingerprint FROM \(unescaped: table("commands"))
                    WHERE stream = \(stream) AND command_id = \(commandId)
                    """
                ).rows
                return try rows.first.map { row in
                    let (first, count, version, fingerprint) = try row.decode((Int64, Int32, Int64, Int64?).self)
                    return CommandReceipt(
                        firstPosition: Int(first), eventCount: Int(count), version: Int(version),
                        commandFingerprint: fingerprint.map { UInt64(bitPattern: $0) })
                }
            }
        }

        /// Rows per page of a walk: the first page is small, so that a short read (`log --limit`, a
        /// follower's next events) costs little; later pages are large, so a long walk costs few round trips.
        static let firstPage = 256
        static let page = 4_096

        /// Events `from…through` in position order. The walk reads pages of positions up to the last
        /// position it found when it began: appends serialise and commit in position order, so that
        /// prefix of the log is complete and never changes (one consistent snapshot, as LMDB's).
        /// Forgotten events are left out (they belong to no stream); `forEachRecord` yields them too.
        public func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
            try walk(from: from, through: through, fingerprints: false) { event, _ in try body(event) }
        }

        /// The walk behind `forEachEvent(from:through:)`, `forEachRecord(from:through:)` and
        /// `forEachEventWithFingerprint(from:through:)`; the fingerprint column is read only when asked
        /// for. Forgotten records are checked against the chain like any other, and left out unless
        /// `includingForgotten`.
        func walk(
            from: Int, through: Int?, fingerprints: Bool, includingForgotten: Bool = false,
            _ body: (RecordedEvent, UInt64?) throws -> Bool
        ) throws {
            let start = max(from, 1)
            let last = try lastPosition()
            let end = min(through ?? last, last)
            guard start <= end else { return }
            var previousHash: UInt64?
            var next = start
            var limit = Self.firstPage
            while next <= end {
                // Each page also reads the record before it, whose chain hash seeds the page's first record.
                let page: [(Int, ByteBuffer, UInt64?)] = try withSession { session in
                    let rows = try session.query(
                        """
                        SELECT position, record, \(unescaped: fingerprints ? "fingerprint" : "NULL::bigint") FROM \(unescaped: table("events"))
                        WHERE position >= \(Int64(next - 1)) AND position <= \(Int64(end)) ORDER BY position LIMIT \(Int64(limit + 1))
                        """
                    ).rows
                    return try rows.map { row in
                        let (position, record, fingerprint) = try row.decode((Int64, ByteBuffer, Int64?).self)
                        return (Int(position), record, fingerprint.map { UInt64(bitPattern: $0) })
                    }
                }
                var rows = page[...]
                if next > 1 {
                    guard let first = rows.first, first.0 == next - 1 else {
                        throw FlowLogError.damaged(RecordDamage(position: next - 1, stream: nil, problem: "it is missing"))
                    }
                    if previousHash == nil {
                        guard let hash = first.1.withUnsafeReadableBytes({ RecordCodec.storedHash(of: $0) }) else {
                            throw FlowLogError.damaged(RecordDamage(position: next - 1, stream: nil, problem: "the record is truncated"))
                        }
                        previousHash = hash
                    }
                    rows = rows.dropFirst()
                } else {
                    previousHash = RecordCodec.genesisHash
                }
                var event = RecordedEvent.placeholder
                for (position, record, fingerprint) in rows {
                    guard position == next else {
                        throw FlowLogError.damaged(
                            RecordDamage(position: next, stream: nil, problem: "it is missing (the next stored position is \(position))"))
                    }
                    previousHash = try Self.decode(record, position: position, previousHash: previousHash!, into: &event)
                    if includingForgotten || !event.isForgotten {
                        guard try body(event, fingerprint) else { return }
                    }
                    next += 1
                }
                if rows.isEmpty, next <= end {
                    throw FlowLogError.damaged(RecordDamage(position: next, stream: nil, problem: "it is missing"))
                }
                limit = Self.page
            }
        }

        static func decode(_ record: ByteBuffer, position: Int, previousHash: UInt64, into event: inout RecordedEvent) throws -> UInt64 {
            do {
                return try record.withUnsafeReadableBytes { bytes throws(RecordDamage) in
                    try RecordCodec.decode(bytes, expectedPosition: position, previousHash: previousHash, into: &event)
                }
            } catch {
                throw FlowLogError.damaged(error)
            }
        }

        public func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
            try scan(stream: stream, fromVersion: 1, throughPosition: throughPosition, body)
        }

        /// One stream's events from `fromVersion` in version order, each checked against its chain link
        /// (the hash stored at the position before it).
        func scan(stream: String, fromVersion: Int, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
            let last = try lastPosition()
            let end = min(throughPosition ?? last, last)
            var version = fromVersion
            var limit = Self.firstPage
            while true {
                let page: [ChainedRow] = try withSession { session in
                    try session.query(
                        """
                        SELECT e.position, e.record, substring(p.record FROM octet_length(p.record) - 7)
                        FROM \(unescaped: table("events")) e LEFT JOIN \(unescaped: table("events")) p ON p.position = e.position - 1
                        WHERE e.stream = \(stream) AND e.version >= \(Int64(version)) AND e.position <= \(Int64(end))
                        ORDER BY e.version LIMIT \(Int64(limit))
                        """
                    ).rows.map(Self.chainedRow)
                }
                var event = RecordedEvent.placeholder
                for row in page {
                    try Self.decode(row, into: &event)
                    guard event.stream == stream, event.version == version else {
                        throw FlowLogError.damaged(
                            RecordDamage(
                                position: row.position, stream: stream,
                                problem: "the row says version \(version) of \(stream), the record says version \(event.version) of \(event.stream)"))
                    }
                    guard try body(event) else { return }
                    version += 1
                }
                if page.count < limit { return }
                limit = Self.page
            }
        }

        public func event(inStream stream: String, version: Int) throws -> RecordedEvent? {
            guard version >= 1 else { return nil }
            var found: RecordedEvent?
            try scanOne(stream: stream, version: version) { found = $0 }
            return found
        }

        private func scanOne(stream: String, version: Int, _ body: (RecordedEvent) -> Void) throws {
            let row: ChainedRow? = try withSession { session in
                try session.query(
                    """
                    SELECT e.position, e.record, substring(p.record FROM octet_length(p.record) - 7)
                    FROM \(unescaped: table("events")) e LEFT JOIN \(unescaped: table("events")) p ON p.position = e.position - 1
                    WHERE e.stream = \(stream) AND e.version = \(Int64(version))
                    """
                ).rows.first.map(Self.chainedRow)
            }
            guard let row else { return }
            var event = RecordedEvent.placeholder
            try Self.decode(row, into: &event)
            guard event.stream == stream, event.version == version else {
                throw FlowLogError.damaged(
                    RecordDamage(
                        position: row.position, stream: stream,
                        problem: "the row says version \(version) of \(stream), the record says version \(event.version) of \(event.stream)"))
            }
            body(event)
        }

        /// The state from the latest intact snapshot at or before `throughPosition` that today's reducers
        /// wrote, then the stream's events after it.
        public func streamState(ofStream stream: String, throughPosition: Int?) throws -> (state: StreamState, version: Int) {
            let through = Int64(throughPosition ?? Int.max)
            let snapshots: [(Int64, ByteBuffer)] = try withSession { session in
                try session.query(
                    """
                    SELECT version, state FROM \(unescaped: table("snapshots"))
                    WHERE stream = \(stream) AND position <= \(through) AND reducer_version = \(Int32(StreamState.reducerVersion))
                    ORDER BY version DESC LIMIT 3
                    """
                ).rows.map { try $0.decode((Int64, ByteBuffer).self) }
            }
            var fold = StreamFold.initial
            for (snapshotVersion, bytes) in snapshots {
                if let decoded = Self.decodeSnapshot(bytes) {
                    fold = StreamFold(decoded, version: Int(snapshotVersion))
                    break
                }
            }
            try scan(stream: stream, fromVersion: fold.version + 1, throughPosition: throughPosition) { event in
                fold.fold(event)
                return true
            }
            return fold.folded
        }

        /// A snapshot's bytes: the whole state, kept rows included, and a checksum.
        static func snapshotBytes(_ state: StreamState) -> ByteBuffer {
            var encoded = BinaryWriter(capacity: 256)
            state.encode(into: &encoded)
            encoded.writeChecksum()
            return encoded.withUnsafeBytes { ByteBuffer(bytes: $0) }
        }

        /// The state a snapshot holds, or `nil` when its checksum or encoding fails.
        static func decodeSnapshot(_ bytes: ByteBuffer) -> StreamState? {
            bytes.withUnsafeReadableBytes { raw in
                guard raw.count > 8, let body = BinaryWriter.verifiedBody(of: raw) else { return nil }
                return StreamState.decode(body)
            }
        }
    }
#endif
