#if Network
import FlowLog
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
/// `record` keeps its first 52 bytes (envelope and payload digest) and its chain hash and loses
/// its salt and payload, exactly as on LMDB (`RecordCodec`, layout 2); `stream`, `correlation_id`,
/// `causation_id`, `data` and `fingerprint` become NULL (a state's fingerprint would confirm a
/// guess of the state). The derived rows go: `streams`, `commands`, `snapshots`, `stream_states`
/// and the stream's `local_storage` key; its `orders` rows keep position, total and item count,
/// with `stream` and `order_id` blank (`''`, as LMDB's read model keeps them), so order counts
/// and revenue still add up. docs/postgres.md says what an analyst still sees.
extension PostgresEventLog: StreamForgetting {
    public func forget(streams: [String]) throws -> [ForgottenStream] {
        try requireWritable()
        return try inTransaction { session in
            try session.query("SELECT pg_advisory_xact_lock(\(schema.appendLock))")
            let logSchema = try Self.settings(session, table("meta")).logSchema
            guard RecordLayout(logSchema: logSchema) == .salted else {
                throw ForgetRefusal.upgradeRequired(location: location, logSchema: logSchema)
            }
            return try streams.map { stream in try forget(stream: stream, logSchema: logSchema, session) }
        }
    }

    /// Every record from `from` through `through`, forgotten ones included.
    public func forEachRecord(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try walk(from: from, through: through, fingerprints: false, includingForgotten: true) { event, _ in try body(event) }
    }

    private func forget(stream: String, logSchema: Int, _ session: PostgresSession) throws -> ForgottenStream {
        let rows = try session.query("""
            SELECT position, record, correlation_id FROM \(unescaped: table("events")) WHERE stream = \(stream) ORDER BY version
            """).rows
        guard !rows.isEmpty else { throw ForgetRefusal.unknownStream(stream, location: location) }
        var positions: [Int64] = []
        var records: [ByteBuffer] = []
        var correlationIds: [String] = []
        for row in rows {
            let (position, record, correlation) = try row.decode((Int64, ByteBuffer, String?).self)
            records.append(try Self.forgottenRecord(record, position: Int(position), logSchema: logSchema, location: location))
            positions.append(position)
            if let correlation, !correlationIds.contains(correlation) { correlationIds.append(correlation) }
        }
        _ = try session.queries([
            """
            UPDATE \(unescaped: table("events")) e SET record = u.b, stream = NULL, correlation_id = NULL, causation_id = NULL,
                data = NULL, fingerprint = NULL
            FROM unnest(\(positions)::int8[], \(records)::bytea[]) AS u(p, b) WHERE e.position = u.p
            """,
            "DELETE FROM \(unescaped: table("streams")) WHERE stream = \(stream)",
            "DELETE FROM \(unescaped: table("commands")) WHERE stream = \(stream)",
            "DELETE FROM \(unescaped: table("snapshots")) WHERE stream = \(stream)",
            "DELETE FROM \(unescaped: table("stream_states")) WHERE stream = \(stream)",
            "DELETE FROM \(unescaped: table("local_storage")) WHERE key = \(stream)",
            "UPDATE \(unescaped: table("orders")) SET stream = '', order_id = '' WHERE stream = \(stream)",
        ], during: "forgetting a stream")
        return ForgottenStream(stream: stream, events: positions.count, firstPosition: Int(positions.min() ?? 0),
                               lastPosition: Int(positions.max() ?? 0), correlationIds: correlationIds)
    }

    /// A record's forgotten form: the chained prefix, the flag, the chain hash (as on LMDB).
    static func forgottenRecord(_ record: ByteBuffer, position: Int, logSchema: Int, location: String) throws -> ByteBuffer {
        let bytes = Array(record.readableBytesView)
        guard bytes.count > RecordCodec.saltOffset + RecordCodec.trailerSize, bytes[0] == RecordLayout.salted.rawValue else {
            throw ForgetRefusal.upgradeRequired(location: location, logSchema: logSchema)
        }
        var forgotten = Array(bytes[..<RecordCodec.chainedPrefix])
        forgotten.append(1)
        forgotten.append(contentsOf: bytes[(bytes.count - RecordCodec.trailerSize)...])
        return ByteBuffer(bytes: forgotten)
    }
}
#endif
