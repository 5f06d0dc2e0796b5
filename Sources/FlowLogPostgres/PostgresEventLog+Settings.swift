#if Network
    import FlowLogBasics
    public import FlowLogStore
    import PostgresNIO

    /// The log's settings in its `meta` table: `schema`, written when the log is created and raised by
    /// `flowlog upgrade`, and `currency`, written by `flowlog init --currency`; a log without it is in
    /// USD, as every log before currencies was; and `retention` (such as `90d`), written by `flowlog
    /// retain --set` and deleted by `--set off`. A change holds the append lock, so that no append
    /// comes between what it reads and what it writes. Raising the schema to 3 rewrites every record
    /// into the salted layout in the same transaction (`rewriteRecords`); raising it to 5 adds the
    /// events' trace context columns (`PostgresSchema.traceColumns`), a change of the catalog only.
    extension PostgresEventLog {
        public func settings() throws -> LogSettings {
            try withSession { session in try Self.settings(session, table("meta")) }
        }

        static func settings(_ session: PostgresSession, _ meta: String) throws -> LogSettings {
            var values: [String: String] = [:]
            for row in try session.query("SELECT key::text, value::text FROM \(unescaped: meta) WHERE key IN ('schema', 'currency', 'retention')")
                .rows
            {
                let (key, value) = try row.decode((String, String).self)
                values[key] = value
            }
            return LogSettings(
                logSchema: values["schema"].flatMap(Int.init) ?? 1,
                defaultCurrency: values["currency"] ?? LogSettings.currencyOfEarlierLogs,
                retention: values["retention"].flatMap(RetentionPeriod.init))
        }

        public func updateSettings(_ change: (LogSettings, Bool) throws -> LogSettings) throws -> LogSettings {
            try inTransaction { session in
                try session.query("SELECT pg_advisory_xact_lock(\(schema.appendLock))")
                let current = try Self.settings(session, table("meta"))
                let empty = try session.query("SELECT NOT EXISTS (SELECT 1 FROM \(unescaped: table("events")))").rows[0].decode(Bool.self)
                let changed = try change(current, empty)
                if changed.logSchema != current.logSchema {
                    try current.checkSchemaChange(to: changed, location: location)
                    if changed.recordLayout.isSalted != current.recordLayout.isSalted { try rewriteRecords(into: changed.recordLayout, session) }
                    if changed.recordLayout == .traced, current.recordLayout != .traced {
                        _ = try session.queries(schema.traceColumns.map { PostgresQuery(unsafeSQL: $0) }, during: "upgrading the log")
                    }
                }
                for (key, value, old) in [
                    ("schema", String(changed.logSchema), String(current.logSchema)),
                    ("currency", changed.defaultCurrency, current.defaultCurrency),
                ] where value != old {
                    try session.query(
                        """
                        INSERT INTO \(unescaped: table("meta")) (key, value) VALUES (\(key), \(value))
                        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                        """)
                }
                if changed.retention != current.retention {
                    if let retention = changed.retention?.description {
                        try session.query(
                            """
                            INSERT INTO \(unescaped: table("meta")) (key, value) VALUES ('retention', \(retention))
                            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                            """)
                    } else {
                        try session.query("DELETE FROM \(unescaped: table("meta")) WHERE key = 'retention'")
                    }
                }
                return changed
            }
        }
    }
#endif
