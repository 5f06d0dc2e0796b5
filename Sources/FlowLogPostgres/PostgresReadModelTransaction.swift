#if Network
    import Deciding
    import FlowLogBasics
    import FlowLogStore
    import Foundation
    import PostgresNIO

    /// The read models inside one transaction. The `storage` checkpoint row is locked first (`FOR
    /// UPDATE`), so two runners can never apply the same events; states, orders and flags are written
    /// at the end in three statements.
    final class PostgresReadModelTransaction: ReadModelTransaction {
        private let session: PostgresSession
        private let schema: PostgresSchema
        private var states: [String: (state: StreamState, version: Int)] = [:]
        private var changedStates: [String] = []
        private var changedSet: Set<String> = []
        private var rows: [(position: Int, stream: String, row: KeptRow)] = []
        private var storedCheckpoint: Int
        private var checkpointChanged = false
        private let flags: PostgresLocalStorage
        var localStorage: any LocalStorage { flags }

        /// `fence`: the generation of the storage projector's lease this process holds, if it expires.
        init(session: PostgresSession, schema: PostgresSchema, fence: Int64? = nil) throws {
            self.session = session
            self.schema = schema
            let projections = schema.table("projections")
            try PostgresEventLog.checkFence(PostgresEventLog.storageProjector, fence, session, leases: schema.table("leases"))
            try session.query(
                "INSERT INTO \(unescaped: projections) (projector) VALUES (\(PostgresEventLog.storageProjector)) ON CONFLICT DO NOTHING")
            storedCheckpoint = try PostgresEventLog.checkpoint(of: PostgresEventLog.storageProjector, session, projections, locking: true)
            flags = PostgresLocalStorage(session: session, table: schema.table("local_storage"))
        }

        func checkpoint() throws -> Int { storedCheckpoint }

        func setCheckpoint(_ position: Int) throws {
            storedCheckpoint = position
            checkpointChanged = true
        }

        func state(of stream: String) throws -> (state: StreamState, version: Int)? {
            if let cached = states[stream] { return cached }
            let rows = try session.query("SELECT version, state FROM \(unescaped: schema.table("stream_states")) WHERE stream = \(stream)").rows
            guard let row = rows.first else { return nil }
            let (version, bytes) = try row.decode((Int64, ByteBuffer).self)
            guard let state = bytes.withUnsafeReadableBytes({ StreamState.decode($0) }) else { return nil }
            states[stream] = (state, Int(version))
            return (state, Int(version))
        }

        func setState(_ state: StreamState, version: Int, of stream: String) throws {
            states[stream] = (state, version)
            if changedSet.insert(stream).inserted { changedStates.append(stream) }
        }

        func addRow(_ row: KeptRow, stream: String, position: Int) throws {
            rows.append((position, stream, row))
        }

        /// Writes what the transaction changed.
        func flush() throws {
            var statements: [PostgresQuery] = []
            if !changedStates.isEmpty { statements.append(try statesStatement()) }
            if !rows.isEmpty { statements.append(try rowsStatement()) }
            if let flagStatement = flags.flushStatement() { statements.append(flagStatement) }
            if checkpointChanged {
                statements.append(
                    "UPDATE \(unescaped: schema.table("projections")) SET checkpoint = \(Int64(storedCheckpoint)) WHERE projector = \(PostgresEventLog.storageProjector)"
                )
            }
            if !statements.isEmpty { _ = try session.queries(statements, during: "writing the read models") }
        }
    }

    extension PostgresReadModelTransaction {
        /// The changed states: version, the domain's declared columns, and the whole state as bytes.
        func statesStatement() throws -> PostgresQuery {
            let columns = StreamState.columns
            var bindings = PostgresBindings()
            var versions: [Int64] = []
            var values: [[ReadModelColumn<LogDecider.State>.Value]] = []
            var bytes: [ByteBuffer] = []
            var writer = BinaryWriter(capacity: 512)
            for stream in changedStates {
                let (state, version) = states[stream]!
                versions.append(Int64(version))
                values.append(state.columnValues)
                state.encode(into: &writer)
                bytes.append(writer.withUnsafeBytes { ByteBuffer(bytes: $0) })
            }
            bindings.append(changedStates)
            bindings.append(versions)
            try ReadModelSQL.bindArrays(columns.map(\.type), values, into: &bindings)
            bindings.append(bytes)
            let names = columns.map { "\($0.name)" }
            let arrays =
                ["$1::text[]", "$2::int8[]"] + ReadModelSQL.unnestArguments(columns.map(\.type), after: 2) + ["$\(columns.count + 3)::bytea[]"]
            let updates = (["version"] + names + ["state"]).map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            return PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(schema.table("stream_states")) (stream, version, \(names.joined(separator: ", ")), state)
                    SELECT * FROM unnest(\(arrays.joined(separator: ", ")))
                    ON CONFLICT (stream) DO UPDATE SET \(updates)
                    """, binds: bindings)
        }

        /// The kept rows added: position, stream and the domain's declared columns.
        func rowsStatement() throws -> PostgresQuery {
            let columns = KeptRow.columns
            var bindings = PostgresBindings()
            bindings.append(rows.map { Int64($0.position) })
            bindings.append(rows.map(\.stream))
            try ReadModelSQL.bindArrays(columns.map(\.type), rows.map(\.row.columnValues), into: &bindings)
            let names = columns.map { "\($0.name)" }
            let arrays = ["$1::int8[]", "$2::text[]"] + ReadModelSQL.unnestArguments(columns.map(\.type), after: 2)
            let updates = (["stream"] + names).map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            return PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(schema.table("orders")) (position, stream, \(names.joined(separator: ", ")))
                    SELECT * FROM unnest(\(arrays.joined(separator: ", ")))
                    ON CONFLICT (position) DO UPDATE SET \(updates)
                    """, binds: bindings)
        }
    }

    /// `LocalStorage` over `local_storage`, inside the read models' transaction: reads are cached,
    /// writes wait for the transaction's end.
    final class PostgresLocalStorage: LocalStorage {
        private let session: PostgresSession
        private let table: String
        private var values: [String: Bool?] = [:]
        private var changed: [String] = []
        private var changedSet: Set<String> = []

        init(session: PostgresSession, table: String) {
            self.session = session
            self.table = table
        }

        func bool(forKey key: String) throws -> Bool? {
            if let cached = values[key] { return cached }
            let value = try session.query("SELECT value FROM \(unescaped: table) WHERE key = \(key)").rows.first.map { try $0.decode(Bool.self) }
            values[key] = .some(value)
            return value
        }

        func set(_ value: Bool, forKey key: String) throws {
            values[key] = .some(value)
            if changedSet.insert(key).inserted { changed.append(key) }
        }

        func flushStatement() -> PostgresQuery? {
            guard !changed.isEmpty else { return nil }
            let flags = changed.map { values[$0]!! }
            return """
                INSERT INTO \(unescaped: table) (key, value) SELECT * FROM unnest(\(changed)::text[], \(flags)::bool[])
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                """
        }
    }
#endif
