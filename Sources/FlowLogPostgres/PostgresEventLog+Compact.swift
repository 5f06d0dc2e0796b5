#if Network
    public import FlowLogStore
    import PostgresNIO

    extension PostgresEventLog {
        /// How long `compact` waits for `VACUUM FULL`: a rewrite of every table of a large log takes
        /// far longer than one statement's usual deadline (`Options.operationTimeout`).
        static let compactionTimeout: Double = 24 * 60 * 60

        /// `flowlog compact` on PostgreSQL: `VACUUM FULL` on every table of the log, which writes each
        /// table (and its indexes and TOAST) anew without the space dead rows took, and gives the old
        /// files back to the operating system: rows deleted or updated are then gone from the log's
        /// relation files, not only from its answers.
        ///
        /// `VACUUM FULL` holds an ACCESS EXCLUSIVE lock on each table while it rewrites it: appends,
        /// reads and followers of the log wait meanwhile (a table at a time), and the rewrite needs room
        /// for a second copy of the table. It cannot reach copies outside the tables: the WAL (until the
        /// server recycles it), base backups and replicas. Sizes are `pg_total_relation_size`, summed.
        public func compact() throws -> LogCompaction {
            try requireWritable()
            return try withSession { session in
                let before = try tablesSize(session)
                let names = PostgresSchema.tableNames.map(table).joined(separator: ", ")
                // VACUUM runs outside a transaction block; it takes each table in a transaction of its own.
                try session.query("VACUUM (FULL) \(unescaped: names)", timeout: Self.compactionTimeout)
                let after = try tablesSize(session)
                return LogCompaction(location: location, bytesBefore: before, bytesAfter: after)
            }
        }

        private func tablesSize(_ session: PostgresSession) throws -> Int {
            let rows = try session.query(
                """
                SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_catalog.pg_class c
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = \(schema.name) AND c.relkind = 'r' AND c.relname::text = ANY(\(PostgresSchema.tableNames))
                """
            ).rows
            return Int(try rows[0].decode(Int64.self))
        }
    }
#endif
