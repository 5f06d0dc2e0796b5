#if Network
    import FlowLogBasics
    public import FlowLogStore
    import Foundation
    import PostgresNIO

    extension PostgresEventLog: DeferredCommitAppending {
        public var defersCommit: Bool { true }

        /// One transaction per batch, serialised with every other writer of the log by a transaction-scoped
        /// advisory lock, so positions are assigned and committed in order (docs/postgres.md, "Gap-free").
        public func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
            let (results, commit) = try appendDeferringCommit(requests)
            try commit.wait()
            return results
        }

        /// Two waits for the server, and a third left to the caller: the first sends `BEGIN`, takes the
        /// lock and reads the head, the snapshot interval, the log schema (whose record layout the
        /// batch is written in: `flowlog upgrade` may have raised it since the last append), the
        /// batch's streams and its command ids
        /// (statements after the lock see every earlier append); `AppendRules` then decide in memory,
        /// and one statement that inserts the events, receipts and stream versions and notifies
        /// followers is sent with `COMMIT`, without waiting: the caller decides its next batch while
        /// the server writes this one. Any next call on this log (the next append's `BEGIN` included)
        /// first waits for that commit and throws its failure.
        ///
        /// The rules are applied, and the rows encoded, before the lock is taken, while the previous
        /// batch may still be committing: against the head the previous append left and the versions
        /// the requests expect, the last layout, with no earlier receipts. Under the lock, that guess is compared with
        /// what the reads found; only if every input agrees are its rows sent (`AppendRules` decide
        /// from nothing else, so they are the rows the reads would give), else the rules are applied
        /// again to what was read. Another writer in between costs that second pass, never a wrong row.
        public func appendDeferringCommit(_ requests: [AppendRequest]) throws -> (results: [AppendResult], commit: any PendingCommit) {
            try requireWritable()
            return try lock.withLock { try appendHoldingLock(requests) }
        }

        /// `appendDeferringCommit`, holding `lock` from the guess to the rows sent.
        private func appendHoldingLock(_ requests: [AppendRequest]) throws -> (results: [AppendResult], commit: any PendingCommit) {
            let guess = speculate(requests)
            let streams = Array(Set(requests.map(\.stream)))
            let commands = requests.compactMap { request in request.commandId.map { (stream: request.stream, commandId: $0) } }
            return try withSession { session in
                appending.predicted = nil
                do {
                    let read = try session.queries(
                        [
                            "BEGIN",
                            "SELECT pg_advisory_xact_lock(\(schema.appendLock))",
                            """
                            \(unescaped: headQuery)
                            """,
                            versionsQuery(streams),
                            receiptsQuery(commands),
                        ], during: "appending")
                    let (results, transaction, statements) = try withUnsafeMutablePointer(to: &appending.encoder) { encoder in
                        let found = try PostgresAppend(
                            head: read[2], versions: Self.versions(from: read[3]), receipts: Self.receipts(from: read[4]),
                            encoder: encoder)
                        if let guess, guess.transaction.guessed(found) { return guess }
                        var transaction = found
                        let results = try AppendRules.apply(requests, in: &transaction)
                        return (results, transaction, transaction.statements(schema: schema))
                    }
                    let commit = PostgresPendingCommit(log: self, sent: try session.send(statements))
                    AppendedBytes.add(transaction.bytesStored)
                    appending.inFlight = commit
                    appending.predicted = (transaction.end.position, transaction.end.hash, transaction.snapshotInterval, transaction.layout)
                    return (results, commit)
                } catch {
                    if session.connection != nil { _ = try? session.query("ROLLBACK") }
                    throw error
                }
            }
        }

        /// An append inside a transaction of the caller's that holds the append lock already (a
        /// forget's audit events, in the forget's own transaction): read, decided and written there,
        /// committed with it. The next append reads the head again rather than guess it.
        func append(_ requests: [AppendRequest], inTransactionOf session: PostgresSession) throws -> [AppendResult] {
            let streams = Array(Set(requests.map(\.stream)))
            let commands = requests.compactMap { request in request.commandId.map { (stream: request.stream, commandId: $0) } }
            appending.predicted = nil
            let read = try session.queries(
                [
                    """
                    \(unescaped: headQuery)
                    """,
                    versionsQuery(streams),
                    receiptsQuery(commands),
                ], during: "appending")
            let (results, statements) = try withUnsafeMutablePointer(to: &appending.encoder) { encoder in
                var transaction = try PostgresAppend(
                    head: read[0], versions: Self.versions(from: read[1]), receipts: Self.receipts(from: read[2]),
                    encoder: encoder)
                let results = try AppendRules.apply(requests, in: &transaction)
                // Without the `COMMIT`: the caller's transaction commits it.
                return (results, transaction.statements(schema: schema).dropLast())
            }
            _ = try session.queries(Array(statements), during: "appending")
            return results
        }

        /// The rules applied to the head the last append left and the versions the requests expect
        /// (each stream's first request's), or `nil` when there is nothing to go on.
        private func speculate(_ requests: [AppendRequest]) -> (results: [AppendResult], transaction: PostgresAppend, statements: [PostgresQuery])? {
            guard let head = appending.predicted else { return nil }
            var versions: [String: Int] = [:]
            for request in requests where versions[request.stream] == nil {
                guard let expected = request.expectedVersion else { return nil }
                versions[request.stream] = expected
            }
            return try? withUnsafeMutablePointer(to: &appending.encoder) { encoder in
                var transaction = PostgresAppend(
                    guessing: (head.position, head.hash), snapshotInterval: head.snapshotInterval, layout: head.layout,
                    versions: versions, encoder: encoder)
                let results = try AppendRules.apply(requests, in: &transaction)
                return (results, transaction, transaction.statements(schema: schema))
            }
        }

        /// What an append or import reads first under the lock: the snapshot interval, the log schema,
        /// and the last record (none in an empty log).
        var headQuery: String {
            """
            SELECT (SELECT value FROM \(table("meta")) WHERE key = 'snapshotInterval'), (SELECT value FROM \(table("meta")) WHERE key = 'schema'),
                e.position, e.record
            FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT position, record FROM \(table("events")) ORDER BY position DESC LIMIT 1) e ON true
            """
        }

        /// Waits for the commit in flight, if any, and throws its failure (the caller holds `lock`).
        func settleCommit() throws {
            guard let commit = appending.inFlight else { return }
            appending.inFlight = nil
            do {
                _ = try session.finish(commit.sent, during: "committing an append")
                commit.outcome = .success(())
            } catch {
                if session.connection != nil { _ = try? session.query("ROLLBACK") }
                if case .io(let path, let detail) = error, session.connection == nil {
                    // The COMMIT may have reached the server: say so, rather than promise nothing was written.
                    commit.outcome = .failure(
                        .io(
                            path: path,
                            detail: detail + "; the batch may or may not have been committed: send it again (command ids make a retry a duplicate)"))
                } else {
                    commit.outcome = .failure(error)
                }
            }
            try commit.outcome!.get()
        }
    }

    /// What a log object's appends keep between calls.
    struct AppendingState: ~Copyable {
        /// Reused to encode appended records.
        var encoder = BinaryWriter(capacity: 512)
        /// The last append's `COMMIT`, while nobody has waited for it (`appendDeferringCommit`).
        var inFlight: PostgresPendingCommit?
        /// The head, snapshot interval and layout the last append left, should it commit: the next one's guess.
        var predicted: (position: Int, hash: UInt64, snapshotInterval: Int, layout: RecordLayout)?
    }

    /// An append's `COMMIT` on its way (`appendDeferringCommit`).
    final class PostgresPendingCommit: PendingCommit {
        private unowned let log: PostgresEventLog
        let sent: PostgresSession.Sent
        /// Set once the answers came (by `wait`, or by the log's next call).
        var outcome: Result<Void, FlowLogError>?

        init(log: PostgresEventLog, sent: PostgresSession.Sent) {
            self.log = log
            self.sent = sent
        }

        func wait() throws {
            try log.lock.withLock {
                if outcome == nil { try log.settleCommit() }
                try outcome!.get()
            }
        }
    }

    /// An append's transaction as `AppendRules` sees it: what the first round trip read, and the rows
    /// the accepted requests add, gathered column by column for one `INSERT … SELECT FROM unnest(…)`.
    struct PostgresAppend: AppendTransaction {
        let snapshotInterval: Int
        /// The layout of the log's schema as this transaction read it: salted from log schema 3 on.
        let layout: RecordLayout
        private let start: (position: Int, hash: UInt64)
        private var versions: [String: Int] = [:]
        private var receipts: [String: [String: CommandReceipt]] = [:]
        /// The last position stored and its chain hash: the next append's head, once this one commits.
        private(set) var end: (position: Int, hash: UInt64)
        private let encoder: UnsafeMutablePointer<BinaryWriter>
        private var json = JSONWriter(capacity: 256)

        private(set) var positions: [Int64] = []
        private var streams: [String] = []
        private var eventVersions: [Int64] = []
        private var ids: [PostgresEventID] = []
        private var types: [String] = []
        private var actors: [String] = []
        private var times: [PostgresTimestamp] = []
        private var correlations: [String] = []
        private var causations: [String] = []
        /// The trace context's columns, filled only in the traced layout (log schema 5), whose tables have them.
        private var traceparents: [String] = []
        private var tracestates: [String] = []
        private var data: [String] = []
        private var fingerprints: [Int64] = []
        private var fingerprinted: [Bool] = []
        private var records: [ByteBuffer] = []
        private var receiptStreams: [String] = []
        private var receiptIds: [String] = []
        private var receiptFirst: [Int64] = []
        private var receiptCounts: [Int32] = []
        private var receiptVersions: [Int64] = []
        /// What each command was (`CommandReceipt.commandFingerprint`), so a reused id is told apart.
        private var receiptFingerprints: [Int64] = []
        private var receiptFingerprinted: [Bool] = []
        private var headStreams: [String] = []
        private var headVersions: [Int64] = []
        private(set) var snapshotStreams: [String] = []
        private var snapshotVersions: [Int64] = []
        private var snapshotPositions: [Int64] = []
        private var snapshotStates: [ByteBuffer] = []
        private var last = 0
        /// The records' bytes, for `AppendedBytes`.
        private(set) var bytesStored = 0
        /// Drawn from only in the salted layout (one read of the kernel's random source per 256 records).
        private var salts = RecordSalts()

        init(
            head: PostgresQueryResult, versions: [String: Int], receipts: [String: [String: CommandReceipt]],
            encoder: UnsafeMutablePointer<BinaryWriter>
        ) throws {
            let (interval, logSchema, position, record) = try head.rows[0].decode((String?, String?, Int64?, ByteBuffer?).self)
            snapshotInterval = interval.flatMap(Int.init) ?? PostgresEventLog.defaultSnapshotInterval
            layout = RecordLayout(logSchema: logSchema.flatMap(Int.init) ?? 1)
            if let position, let record {
                guard let hash = record.withUnsafeReadableBytes({ RecordCodec.storedHash(of: $0) }) else {
                    throw FlowLogError.damaged(RecordDamage(position: Int(position), stream: nil, problem: "the record is truncated"))
                }
                start = (Int(position), hash)
            } else {
                start = (0, RecordCodec.genesisHash)
            }
            self.versions = versions
            self.receipts = receipts
            end = start
            self.encoder = encoder
        }

        /// A transaction on inputs guessed before the reads (`appendDeferringCommit`).
        init(
            guessing head: (position: Int, hash: UInt64), snapshotInterval: Int, layout: RecordLayout, versions: [String: Int],
            encoder: UnsafeMutablePointer<BinaryWriter>
        ) {
            self.snapshotInterval = snapshotInterval
            self.layout = layout
            start = head
            end = head
            self.versions = versions
            self.encoder = encoder
        }

        /// Whether this guess's inputs are the ones `found` read: the same head, snapshot interval and
        /// layout (an upgrade in between changes the head too, but a guess must not lean on that),
        /// every stream at the version guessed, and no receipt of any of the batch's command ids.
        func guessed(_ found: PostgresAppend) -> Bool {
            start == found.start && snapshotInterval == found.snapshotInterval && layout == found.layout && found.receipts.isEmpty
                && versions.allSatisfy { found.versions[$0.key, default: 0] == $0.value }
        }

        /// The statements that write what the rules stored (none may be sent), then `COMMIT`.
        func statements(schema: PostgresSchema) -> [PostgresQuery] {
            var statements: [PostgresQuery] = []
            if !positions.isEmpty { statements.append(writeStatement(schema: schema)) }
            if !snapshotStreams.isEmpty { statements.append(snapshotStatement(schema: schema)) }
            statements.append("COMMIT")
            return statements
        }

        mutating func head() throws -> (position: Int, hash: UInt64) { start }
        mutating func storedVersion(of stream: String) throws -> Int { versions[stream] ?? 0 }
        mutating func storedReceipt(stream: String, commandId: String) throws -> CommandReceipt? { receipts[stream]?[commandId] }

        mutating func store(_ record: RecordedEvent, chainedTo previousHash: UInt64, fingerprint: UInt64?, streamOrdinal: Int) throws -> UInt64 {
            let hash = RecordCodec.encode(record, previousHash: previousHash, layout: layout, salts: &salts, into: &encoder.pointee)
            records.append(encoder.pointee.withUnsafeBytes { ByteBuffer(bytes: $0) })
            bytesStored += encoder.pointee.count
            positions.append(Int64(record.position))
            streams.append(record.stream)
            eventVersions.append(Int64(record.version))
            ids.append(PostgresEventID(record.eventId))
            types.append(record.event.typeName)
            actors.append(record.actor.rawValue)
            times.append(PostgresTimestamp(record.timestamp))
            correlations.append(record.correlationId ?? "")
            causations.append(record.causationId ?? "")
            if layout == .traced {
                traceparents.append(record.traceContext?.traceparent ?? "")
                tracestates.append(record.traceContext?.state ?? "")
            }
            json.reset()
            FlowJSON.writeEventData(record.event, asStored: true, into: &json)
            data.append(json.text)
            fingerprints.append(Int64(bitPattern: fingerprint ?? 0))
            fingerprinted.append(fingerprint != nil)
            last = record.position
            end = (record.position, hash)
            return hash
        }

        mutating func storeReceipt(_ receipt: CommandReceipt, stream: String, commandId: String) throws {
            receipts[stream, default: [:]][commandId] = receipt
            receiptStreams.append(stream)
            receiptIds.append(commandId)
            receiptFirst.append(Int64(receipt.firstPosition))
            receiptCounts.append(Int32(receipt.eventCount))
            receiptVersions.append(Int64(receipt.version))
            receiptFingerprints.append(Int64(bitPattern: receipt.commandFingerprint ?? 0))
            receiptFingerprinted.append(receipt.commandFingerprint != nil)
        }

        /// PostgreSQL keeps no row index: its snapshots hold the whole state, kept rows included, and
        /// the analysts' `orders` table is the storage read model's.
        mutating func keep(_ row: KeptRow, stream: String, version: Int) throws {}

        mutating func storeSnapshot(_ state: StreamState, stream: String, version: Int, position: Int) throws {
            snapshotStreams.append(stream)
            snapshotVersions.append(Int64(version))
            snapshotPositions.append(Int64(position))
            snapshotStates.append(PostgresEventLog.snapshotBytes(state))
        }

        mutating func finish(versions: [String: Int]) throws {
            for (stream, version) in versions {
                headStreams.append(stream)
                headVersions.append(Int64(version))
            }
        }

        /// Inserts the events, the receipts and the streams' versions, and tells followers the new last
        /// position (`pg_notify` is delivered when, and only if, the transaction commits).
        func writeStatement(schema: PostgresSchema) -> PostgresQuery {
            // The trace context's arrays are empty below log schema 5, whose tables lack its columns:
            // `unnest` pads them with NULLs, which nothing reads.
            let traceColumns = layout == .traced ? ", traceparent, tracestate" : ""
            let traceValues = layout == .traced ? ", NULLIF(tp, ''), NULLIF(ts, '')" : ""
            return """
                WITH e AS (
                    INSERT INTO \(unescaped: schema.table("events")) (position, stream, version, event_id, type, actor, recorded_at,
                        correlation_id, causation_id, data, fingerprint, record\(unescaped: traceColumns))
                    SELECT p, s, v, i, t, a, r, NULLIF(c, ''), NULLIF(k, ''), d::jsonb, CASE WHEN h THEN f END, b\(unescaped: traceValues)
                    FROM unnest(\(positions)::int8[], \(streams)::text[], \(eventVersions)::int8[], \(ids)::uuid[], \(types)::text[],
                        \(actors)::text[], \(times)::timestamptz[], \(correlations)::text[], \(causations)::text[], \(data)::text[],
                        \(fingerprints)::int8[], \(fingerprinted)::bool[], \(records)::bytea[], \(traceparents)::text[], \(tracestates)::text[])
                        AS u(p, s, v, i, t, a, r, c, k, d, f, h, b, tp, ts)
                ), c AS (
                    INSERT INTO \(unescaped: schema.table("commands")) (stream, command_id, first_position, event_count, version, command_fingerprint)
                    SELECT s, i, p, n, v, CASE WHEN h THEN f END
                    FROM unnest(\(receiptStreams)::text[], \(receiptIds)::text[], \(receiptFirst)::int8[], \(receiptCounts)::int4[],
                        \(receiptVersions)::int8[], \(receiptFingerprints)::int8[], \(receiptFingerprinted)::bool[]) AS u(s, i, p, n, v, f, h)
                ), s AS (
                    INSERT INTO \(unescaped: schema.table("streams")) (stream, version)
                    SELECT * FROM unnest(\(headStreams)::text[], \(headVersions)::int8[])
                    ON CONFLICT (stream) DO UPDATE SET version = EXCLUDED.version
                )
                SELECT pg_notify(\(schema.channel), \(String(last)))
                """
        }

        func snapshotStatement(schema: PostgresSchema) -> PostgresQuery {
            """
            INSERT INTO \(unescaped: schema.table("snapshots")) (stream, version, position, reducer_version, state)
            SELECT s, v, p, \(Int32(StreamState.reducerVersion)), b
            FROM unnest(\(snapshotStreams)::text[], \(snapshotVersions)::int8[], \(snapshotPositions)::int8[], \(snapshotStates)::bytea[]) AS u(s, v, p, b)
            ON CONFLICT (stream, version) DO UPDATE SET position = EXCLUDED.position, reducer_version = EXCLUDED.reducer_version, state = EXCLUDED.state
            """
        }
    }
#endif
