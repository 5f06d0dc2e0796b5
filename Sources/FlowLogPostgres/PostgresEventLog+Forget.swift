#if Network
    public import FlowLogBasics
    public import FlowLogStore
    import PostgresNIO

    /// `flowlog forget` on PostgreSQL, in one transaction (see `StreamForgetting`).
    ///
    /// The transaction first takes the advisory lock every append and import of the log takes, so a
    /// forget and the appends are serialised: whichever takes the lock first wins. An append to the
    /// stream that took it first is committed before the forget reads the stream's rows, and is
    /// forgotten with them; one that waits behind the forget sees the stream gone and starts it anew
    /// at version 1. Appends to other streams wait for the forget's commit (a few statements) and
    /// lose nothing.
    ///
    /// Each of the stream's rows keeps position, version, event_id, type, actor and recorded_at; its
    /// `record` becomes its forgotten form (`RecordCodec.forgottenForm`: the envelope, a check and its
    /// chain hash, without salt or payload), exactly as on LMDB; `stream`, `correlation_id`,
    /// `causation_id`, `data` and `fingerprint` become NULL (a state's fingerprint would confirm a
    /// guess of the state). The derived rows go: `streams`, `commands`, `snapshots`, `stream_states`
    /// and the stream's `local_storage` key; its `orders` rows keep position, total and item count,
    /// with `stream` and the personal columns (`order_id`) blank (`''`, as LMDB's read model keeps them), so order counts
    /// and revenue still add up. docs/postgres.md says what an analyst still sees.
    ///
    /// The audit events are appended in the forget's own transaction, by the append rules and
    /// statements every append uses (as on LMDB): an erasure is never committed without its audit
    /// event.
    extension PostgresEventLog: StreamForgetting {
        public func forget(streams: [String], lastEventBefore cutoff: Timestamp?, audit: (ForgottenStream) -> NewEvent?) throws -> [ForgottenStream] {
            try requireWritable()
            return try inTransaction { session in
                try session.query("SELECT pg_advisory_xact_lock(\(schema.appendLock))")
                var transaction = ForgetSteps(log: self, session: session)
                return try ForgetRules.forget(streams: streams, lastEventBefore: cutoff, audit: audit, in: &transaction)
            }
        }

        /// Every record from `from` through `through`, forgotten ones included.
        public func forEachRecord(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
            try walk(from: from, through: through, fingerprints: false, includingForgotten: true) { event, _ in try body(event) }
        }

        /// The stream and the kept rows' personal columns (`ReadModelColumn.isPersonal`: the order id),
        /// blanked; what else the domain declared stays, so revenue still adds up.
        static var blankedRowColumns: String {
            (["stream"] + KeptRow.columns.filter(\.isPersonal).map { "\($0.name)" }).map { "\($0) = ''" }.joined(separator: ", ")
        }

        /// A record's forgotten form (`RecordCodec.forgottenForm`, as on LMDB).
        static func forgottenRecord(_ record: ByteBuffer, previousHash: UInt64, position: Int, logSchema: Int, location: String) throws -> ByteBuffer
        {
            guard
                let forgotten = record.withUnsafeReadableBytes({ RecordCodec.forgottenForm(of: $0, previousHash: previousHash, position: position) })
            else {
                throw ForgetRefusal.upgradeRequired(location: location, logSchema: logSchema)
            }
            return ByteBuffer(bytes: forgotten)
        }
    }

    /// The storage steps of `ForgetRules` in one PostgreSQL transaction, which holds the log's
    /// advisory append lock.
    private struct ForgetSteps: ForgetTransaction {
        let log: PostgresEventLog
        let session: PostgresSession
        /// The log schema `logSchema()` read, for a refusal met while forgetting records.
        private var schemaRead = 0

        init(log: PostgresEventLog, session: PostgresSession) { (self.log, self.session) = (log, session) }

        var location: String { log.location }
        private func table(_ name: String) -> String { log.table(name) }

        mutating func logSchema() throws -> Int {
            schemaRead = try PostgresEventLog.settings(session, table("meta")).logSchema
            return schemaRead
        }

        /// The time of the stream's last event, read from its record's envelope.
        func lastEventTime(of stream: String) throws -> Timestamp? {
            let rows = try session.query(
                """
                SELECT record FROM \(unescaped: table("events")) WHERE stream = \(stream) ORDER BY version DESC LIMIT 1
                """
            ).rows
            guard let row = rows.first else { return nil }
            let record = try row.decode(ByteBuffer.self)
            return record.withUnsafeReadableBytes { RecordCodec.storedTimestamp(of: $0) }
        }

        func forgetRecords(of stream: String) throws -> (positions: [Int], correlationIds: [String]) {
            // Each record with the one before it, whose chain hash seeds the forgotten form's check.
            let rows = try session.query(
                """
                SELECT e.position, e.record, e.correlation_id, p.record FROM \(unescaped: table("events")) e
                LEFT JOIN \(unescaped: table("events")) p ON p.position = e.position - 1
                WHERE e.stream = \(stream) ORDER BY e.version
                """
            ).rows
            var positions: [Int64] = []
            var records: [ByteBuffer] = []
            var correlationIds: [String] = []
            for row in rows {
                let (position, record, correlation, before) = try row.decode((Int64, ByteBuffer, String?, ByteBuffer?).self)
                let previousHash =
                    try before.map { before in
                        guard let hash = before.withUnsafeReadableBytes({ RecordCodec.storedHash(of: $0) }) else {
                            throw FlowLogError.damaged(RecordDamage(position: Int(position) - 1, stream: nil, problem: "the record is truncated"))
                        }
                        return hash
                    } ?? RecordCodec.genesisHash
                records.append(
                    try PostgresEventLog.forgottenRecord(
                        record, previousHash: previousHash, position: Int(position), logSchema: schemaRead, location: location))
                positions.append(position)
                if let correlation, !correlationIds.contains(correlation) { correlationIds.append(correlation) }
            }
            guard !positions.isEmpty else { return ([], []) }
            // From log schema 5 on, the trace context goes with the rest (its columns exist only there).
            let traceColumns = RecordLayout(logSchema: schemaRead) == .traced ? ", traceparent = NULL, tracestate = NULL" : ""
            _ = try session.query(
                """
                UPDATE \(unescaped: table("events")) e SET record = u.b, stream = NULL, correlation_id = NULL, causation_id = NULL,
                    data = NULL, fingerprint = NULL\(unescaped: traceColumns)
                FROM unnest(\(positions)::int8[], \(records)::bytea[]) AS u(p, b) WHERE e.position = u.p
                """)
            return (positions.map { Int($0) }, correlationIds)
        }

        func forgetDerived(stream: String, positions: [Int]) throws {
            _ = try session.queries(
                [
                    "DELETE FROM \(unescaped: table("streams")) WHERE stream = \(stream)",
                    "DELETE FROM \(unescaped: table("commands")) WHERE stream = \(stream)",
                    "DELETE FROM \(unescaped: table("snapshots")) WHERE stream = \(stream)",
                    "DELETE FROM \(unescaped: table("stream_states")) WHERE stream = \(stream)",
                    "DELETE FROM \(unescaped: table("local_storage")) WHERE key = \(stream)",
                    "UPDATE \(unescaped: table("orders")) SET \(unescaped: PostgresEventLog.blankedRowColumns) WHERE stream = \(stream)",
                ], during: "forgetting a stream")
        }

        func appendAudits(_ request: AppendRequest) throws { _ = try log.append([request], inTransactionOf: session) }
    }
#endif
