#if Network
    import FlowLogBasics
    import FlowLogStore
    import PostgresNIO

    /// Raising a PostgreSQL log to log schema 3 rewrites every row's `record` into the salted layout
    /// (`RecordLayout`), inside the transaction that raises the schema (`updateSettings`, holding the
    /// append lock): readers see the old records until it commits, and a killed upgrade (its
    /// connection gone) is rolled back by the server, leaving the log as it was. Every other column
    /// stays (positions, versions, event ids, `data`, fingerprints): only the records' bytes and chain
    /// hashes change, as on LMDB.
    ///
    /// Chunks of `rewriteChunk` rows: the log is never held in memory whole, and each chunk is one
    /// read and one `UPDATE … FROM unnest(…)`. The old rows stay in the table's file as dead tuples
    /// until a vacuum (`flowlog compact` runs `VACUUM FULL`): the table takes about twice its size
    /// until then.
    extension PostgresEventLog {
        static let rewriteChunk = 4_096

        func rewriteRecords(into layout: RecordLayout, _ session: PostgresSession) throws {
            if layout.isSalted {
                _ = try session.queries(schema.forgettableColumns.map { PostgresQuery(unsafeSQL: $0) }, during: "upgrading the log")
            }
            var oldHash = RecordCodec.genesisHash
            var newHash = RecordCodec.genesisHash
            var salts = RecordSalts()
            var encoder = BinaryWriter(capacity: 512)
            var event = RecordedEvent.placeholder
            var position = 1
            while true {
                let rows = try session.query(
                    """
                    SELECT position, record FROM \(unescaped: table("events"))
                    WHERE position >= \(Int64(position)) ORDER BY position LIMIT \(Int64(Self.rewriteChunk))
                    """
                ).rows
                var positions: [Int64] = []
                var records: [ByteBuffer] = []
                for row in rows {
                    let (stored, record) = try row.decode((Int64, ByteBuffer).self)
                    guard Int(stored) == position else {
                        throw FlowLogError.damaged(
                            RecordDamage(position: position, stream: nil, problem: "it is missing (the next stored position is \(stored))"))
                    }
                    oldHash = try Self.decode(record, position: position, previousHash: oldHash, into: &event)
                    newHash = RecordCodec.encode(event, previousHash: newHash, layout: layout, salts: &salts, into: &encoder)
                    positions.append(stored)
                    records.append(encoder.withUnsafeBytes { ByteBuffer(bytes: $0) })
                    position += 1
                }
                guard !positions.isEmpty else { return }
                try session.query(
                    """
                    UPDATE \(unescaped: table("events")) e SET record = u.b
                    FROM unnest(\(positions)::int8[], \(records)::bytea[]) AS u(p, b) WHERE e.position = u.p
                    """)
            }
        }
    }
#endif
