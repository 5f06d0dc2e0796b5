#if Network
    import FlowLogBasics
    import FlowLogStore
    import PostgresNIO

    /// The tables of one log, in its own PostgreSQL schema (`?schema=NAME`, default `flowlog`). See
    /// docs/postgres.md for what each column holds and why.
    struct PostgresSchema: Sendable {
        /// The log schema this FlowLog creates PostgreSQL logs at, the newest it writes (as on LMDB); a
        /// log with a higher one is refused. From 3 on, records are salted (`RecordLayout`), which
        /// `forget` needs; a log at 2 or below keeps writing the whole layout until `flowlog upgrade`,
        /// so that the builds still reading it (those of schema 2) can, during a rolling upgrade.
        static let version = LogSettings.newestLogSchema
        /// Every table FlowLog creates; a log's schema must hold all of them.
        static let tableNames = [
            "meta", "events", "streams", "commands", "snapshots", "projections", "leases",
            "orders", "stream_states", "local_storage",
        ]

        let name: String
        /// `"name"`: the schema as SQL names it (validated by `PostgresURL`: no quoting needed inside).
        let quoted: String
        /// The channel appending transactions notify (`pg_notify`) with the new last position.
        let channel: String
        /// The advisory lock every append and import of this log holds until it commits.
        let appendLock: Int64
        let creationLock: Int64

        init(_ name: String) {
            self.name = name
            quoted = "\"\(name)\""
            channel = "flowlog_events_" + name
            appendLock = AdvisoryKey.of("flowlog.append:" + name)
            creationLock = AdvisoryKey.of("flowlog.create:" + name)
        }

        func table(_ table: String) -> String { quoted + "." + table }

        func leaseLock(_ projector: String) -> Int64 { AdvisoryKey.of("flowlog.lease:" + name + "/" + projector) }

        /// The statements that create the log, run in one transaction. `events.stream` and `data` may be
        /// NULL: they are, and only they, in a forgotten event's row (`forgetting`), from log schema 3 on.
        var creation: [String] {
            let s = quoted
            return [
                "CREATE SCHEMA IF NOT EXISTS \(s)",
                "CREATE TABLE \(s).meta (key text PRIMARY KEY, value text NOT NULL)",
                """
                CREATE TABLE \(s).events (
                    position bigint PRIMARY KEY CHECK (position > 0),
                    stream text COLLATE "C",
                    version bigint NOT NULL CHECK (version > 0),
                    event_id uuid NOT NULL UNIQUE,
                    type text NOT NULL,
                    actor text NOT NULL,
                    recorded_at timestamptz NOT NULL,
                    correlation_id text,
                    causation_id text,
                    data jsonb,
                    fingerprint bigint,
                    record bytea NOT NULL,
                    traceparent text,
                    tracestate text,
                    UNIQUE (stream, version))
                """,
                "CREATE TABLE \(s).streams (stream text COLLATE \"C\" PRIMARY KEY, version bigint NOT NULL)",
                """
                CREATE TABLE \(s).commands (stream text COLLATE "C" NOT NULL, command_id text COLLATE "C" NOT NULL,
                    first_position bigint NOT NULL, event_count integer NOT NULL, version bigint NOT NULL,
                    command_fingerprint bigint, PRIMARY KEY (stream, command_id))
                """,
                """
                CREATE TABLE \(s).snapshots (stream text COLLATE "C" NOT NULL, version bigint NOT NULL, position bigint NOT NULL,
                    reducer_version integer NOT NULL, state bytea NOT NULL, PRIMARY KEY (stream, version))
                """,
                """
                CREATE TABLE \(s).projections (projector text COLLATE "C" PRIMARY KEY, checkpoint bigint NOT NULL DEFAULT 0,
                    acknowledged bigint NOT NULL DEFAULT 0, failure text)
                """,
                """
                CREATE TABLE \(s).leases (projector text COLLATE "C" PRIMARY KEY, pid integer NOT NULL, host text NOT NULL,
                    since timestamptz NOT NULL, generation bigint NOT NULL DEFAULT 0, renewed timestamptz)
                """,
                """
                CREATE TABLE \(s).orders (position bigint PRIMARY KEY, stream text COLLATE "C" NOT NULL
                    \(ReadModelSQL.definitions(KeptRow.columns.map { ($0.name, $0.type) })))
                """,
                "CREATE INDEX orders_stream ON \(s).orders (stream, position)",
                """
                CREATE TABLE \(s).stream_states (stream text COLLATE "C" PRIMARY KEY, version bigint NOT NULL
                    \(ReadModelSQL.definitions(StreamState.columns)), state bytea NOT NULL)
                """,
                "CREATE TABLE \(s).local_storage (key text COLLATE \"C\" PRIMARY KEY, value boolean NOT NULL)",
                """
                INSERT INTO \(s).meta (key, value) VALUES ('format', 'flowlog'), ('schema', '\(Self.version)'),
                    ('snapshotInterval', '\(AppendRules.defaultSnapshotInterval)')
                """,
            ]
        }

        /// What log schema 3 changes in the tables of a log created below it (`flowlog upgrade`, in the
        /// transaction that rewrites the records): a forgotten event's row has no stream and no data.
        /// A change of the catalog only; no row is rewritten by it.
        var forgettableColumns: [String] {
            ["ALTER TABLE \(quoted).events ALTER COLUMN stream DROP NOT NULL, ALTER COLUMN data DROP NOT NULL"]
        }

        /// What log schema 5 adds to a log created below it (`flowlog upgrade`): the W3C trace context
        /// of the command that wrote each event, where it had one (NULL in every older row), kept in
        /// the record's bytes too (`RecordLayout.traced`), which the chain covers, the columns being
        /// for queries (docs/postgres.md); and each lease's generation and last renewal, which make a
        /// lease expire and fence its former holder out (`PostgresProjectorLease`).
        var traceColumns: [String] {
            [
                "ALTER TABLE \(quoted).events ADD COLUMN IF NOT EXISTS traceparent text, ADD COLUMN IF NOT EXISTS tracestate text",
                "ALTER TABLE \(quoted).leases ADD COLUMN IF NOT EXISTS generation bigint NOT NULL DEFAULT 0, ADD COLUMN IF NOT EXISTS renewed timestamptz",
            ]
        }

        enum Recognition {
            /// No schema, or one without tables: a log may be created there.
            case empty
            /// A FlowLog log of this schema version.
            case log(version: Int)
        }

        /// What the schema holds, refusing anything FlowLog did not create (and touching nothing).
        func recognise(_ session: PostgresSession, location: String) throws(FlowLogError) -> Recognition {
            let found = try session.query(
                """
                SELECT n.oid IS NOT NULL, (SELECT array_agg(c.relname::text ORDER BY c.relname) FROM pg_catalog.pg_class c
                    WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f'))
                FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = \(name)
                """)
            let (exists, tables): (Bool, [String]?)
            do {
                (exists, tables) = try found.rows[0].decode((Bool, [String]?).self)
            } catch {
                throw PostgresErrors.map(error, url: session.url, during: "reading the database's catalog")
            }
            let present = tables ?? []
            guard exists, !present.isEmpty else { return .empty }
            guard present.contains("meta") else {
                throw .notALog(
                    path: location,
                    reason:
                        "its schema \(name) holds tables FlowLog did not create (\(present.prefix(4).joined(separator: ", "))); FlowLog leaves them as they are: choose another schema with ?schema=NAME"
                )
            }
            var meta: [String: String] = [:]
            do {
                let rows = try session.query("SELECT key::text, value::text FROM \(unescaped: table("meta")) WHERE key::text IN ('format', 'schema')")
                for row in rows.rows {
                    let (key, value) = try row.decode((String, String).self)
                    meta[key] = value
                }
            } catch let error as FlowLogError {
                if case .io = error {
                    throw .notALog(
                        path: location,
                        reason:
                            "its schema \(name) holds a table meta that FlowLog did not create; FlowLog leaves it as it is: choose another schema with ?schema=NAME"
                    )
                }
                throw error
            } catch {
                throw .notALog(path: location, reason: "its schema \(name) holds a table meta that FlowLog did not create")
            }
            guard meta["format"] == "flowlog", let text = meta["schema"], let version = Int(text) else {
                throw .notALog(
                    path: location,
                    reason:
                        "its schema \(name) holds a table meta that FlowLog did not write (no format flowlog and schema version in it); FlowLog leaves it as it is"
                )
            }
            if version > Self.version {
                throw .newerSchema(path: location, found: version, supported: Self.version)
            }
            let missing = Self.tableNames.filter { !present.contains($0) }
            guard missing.isEmpty else {
                throw .notALog(
                    path: location,
                    reason: "it is a FlowLog log whose tables \(missing.joined(separator: ", ")) are missing (dropped by hand?); nothing was changed")
            }
            return .log(version: version)
        }

        /// Creates the log in one transaction, unless another process created it meanwhile. Tables are
        /// created only in a schema that holds none: any other content was refused by `recognise`.
        func create(_ session: PostgresSession, location: String) throws(FlowLogError) {
            try session.query("BEGIN")
            do {
                try session.query("SELECT pg_advisory_xact_lock(\(creationLock))")
                if case .empty = try recognise(session, location: location) {
                    _ = try session.queries(creation.map { PostgresQuery(unsafeSQL: $0) })
                }
                try session.query("COMMIT")
            } catch {
                _ = try? session.query("ROLLBACK")
                throw error
            }
        }
    }
#endif
