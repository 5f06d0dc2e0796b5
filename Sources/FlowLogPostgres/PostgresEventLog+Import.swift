#if Network
    public import FlowLogBasics
    public import FlowLogStore
    import Foundation
    import PostgresNIO
    import Synchronization

    /// Imports into PostgreSQL through `COPY … FROM STDIN`: one transaction for the whole import (all or
    /// nothing), holding the log's append lock, fed by the core's import pipeline. The preparing thread
    /// turns each event into a line of COPY's text format, so the writing thread only sends bytes.
    extension PostgresEventLog: EventImporting, ImportTarget {
        public func importNDJSON(from reader: consuming LineReader, expectedBytes: Int, progress: FlowLogBasics.Progress?) throws -> Int {
            try ImportPipeline.run(reader, into: self, expectedBytes: expectedBytes, progress: progress)
        }

        /// Loads events as they were recorded elsewhere (an export, another log: `flowlog copy`), keeping
        /// positions, versions, ids and timestamps; the records come out the same, but for the salts (and
        /// so the chain hashes) of salted ones, which every write draws afresh.
        public func importEvents(_ produce: (any EventSink) throws -> Void) throws -> Int {
            try withImportSession(expectedBytes: 0) { session in
                let loader = (session as! PostgresImportSession).loader
                let sink = PreparingSink(session: session) { stream in try loader.load(stream) }
                try produce(sink)
                try sink.finish()
                return sink.count
            }
        }

        /// The import's one transaction. Streams the import continues are read through a second, read-only
        /// connection: it sees the log as committed before this transaction took the append lock, which
        /// holds every other writer back until the import commits.
        package func withImportSession(expectedBytes: Int, _ body: (any ImportSession) throws -> Int) throws -> Int {
            try requireWritable()
            return try withSession { session in
                do {
                    let read = try session.queries(
                        [
                            "BEGIN",
                            "SELECT pg_advisory_xact_lock(\(schema.appendLock))",
                            "SET LOCAL search_path TO \(unescaped: schema.quoted)",
                            "\(unescaped: headQuery)",
                        ], during: "starting an import")
                    let (interval, logSchema, position, record) = try read[3].rows[0].decode((String?, String?, Int64?, ByteBuffer?).self)
                    var hash = RecordCodec.genesisHash
                    if let record {
                        guard let stored = record.withUnsafeReadableBytes({ RecordCodec.storedHash(of: $0) }) else {
                            throw FlowLogError.damaged(RecordDamage(position: Int(position ?? 0), stream: nil, problem: "the record is truncated"))
                        }
                        hash = stored
                    }
                    var start = ImportStart(
                        position: Int(position ?? 0), hash: hash, snapshotInterval: interval.flatMap(Int.init) ?? Self.defaultSnapshotInterval,
                        layout: RecordLayout(logSchema: logSchema.flatMap(Int.init) ?? 1))
                    start.streamsHeld = options.importStreamsHeld
                    // Batches of 16,384 events: three are in flight (prepared, queued, sent), each with
                    // its COPY text and its ids, so the batch sets most of an import's memory; batches
                    // twice the size took an import of many short sessions past its 64 MB bound.
                    start.batchSize = 16_384
                    let loader = StreamLoader(url: url, options: options)
                    defer { loader.close() }
                    let importSession = PostgresImportSession(
                        log: self, session: session, start: start, loader: loader, spill: try options.importSpill?())
                    let count = try body(importSession)
                    try importSession.writeSpilledHeads()
                    if count > 0 {
                        _ = try session.queries(
                            ["SELECT pg_notify(\(schema.channel), \(String(importSession.last)))", "COMMIT"], during: "committing the import")
                    } else {
                        try session.query("COMMIT")
                    }
                    return count
                } catch {
                    if session.connection != nil { _ = try? session.query("ROLLBACK") }
                    throw error
                }
            }
        }
    }

    /// Reads streams the import continues, on whichever thread prepares, through a connection of its own.
    /// The lock is held while a stream loads, so that one connection serves one load at a time.
    final class StreamLoader: Sendable {
        private let url: PostgresURL
        private let options: PostgresEventLog.Options
        private let reader = Mutex<PostgresEventLog?>(nil)

        init(url: PostgresURL, options: PostgresEventLog.Options) {
            self.url = url
            self.options = options
        }

        func load(_ stream: String) throws -> (version: Int, state: StreamState) {
            try reader.withLock { reader in
                let log = try reader ?? PostgresEventLog(url: url, access: .readOnly, options: options)
                reader = log
                let version = try log.version(of: stream)
                return (version, version == 0 ? StreamState.initial : try log.streamState(ofStream: stream, throughPosition: nil).state)
            }
        }

        func close() {
            reader.withLock { reader in
                reader?.close()
                reader = nil
            }
        }
    }

    /// An import's transaction as the pipeline sees it.
    final class PostgresImportSession: ImportSession {
        let log: PostgresEventLog
        let session: PostgresSession
        let start: ImportStart
        let loader: StreamLoader
        /// Where the preparation sets aside the streams it stops holding, whole (snapshots hold every
        /// kept row); the streams' versions are written from it after the last batch.
        let spill: (any ImportStreamSpill)?
        /// The last position written so far.
        private(set) var last: Int

        init(log: PostgresEventLog, session: PostgresSession, start: ImportStart, loader: StreamLoader, spill: (any ImportStreamSpill)?) {
            self.log = log
            self.session = session
            self.start = start
            self.loader = loader
            self.spill = spill
            last = start.position
        }

        var streamSpill: (any ImportStreamSpill)? { spill }

        /// With a spill, every stream the import touched is there (`ImportPreparation.takeLast`): their
        /// new versions go to `streams` a thousand at a time, in stream order.
        func writeSpilledHeads() throws {
            guard let spill else { return }
            var heads: [(stream: String, version: Int)] = []
            heads.reserveCapacity(1_000)
            try spill.forEachStream { stream, version, _, _ in
                heads.append((stream, version))
                if heads.count == 1_000 {
                    _ = try session.queries([upsert(heads)], during: "importing")
                    heads.removeAll(keepingCapacity: true)
                }
            }
            if !heads.isEmpty { _ = try session.queries([upsert(heads)], during: "importing") }
        }

        /// The statement that sets the streams' versions.
        private func upsert(_ heads: [(stream: String, version: Int)]) -> PostgresQuery {
            """
            INSERT INTO \(unescaped: log.table("streams")) (stream, version)
            SELECT * FROM unnest(\(heads.map(\.stream))::text[], \(heads.map { Int64($0.version) })::int8[])
            ON CONFLICT (stream) DO UPDATE SET version = EXCLUDED.version
            """
        }

        func makeBuilder() -> any ImportBatchBuilder { PostgresImportBuilder(traced: start.layout == .traced) }

        func withStreamLoader(_ body: (@escaping (String) throws -> (version: Int, state: StreamState)) throws -> Void) throws {
            let loader = self.loader
            try body { stream in try loader.load(stream) }
        }

        /// Sends one batch with `COPY events FROM STDIN`, then its snapshots, and (with the last batch)
        /// the streams' new versions. A repeated event id fails the COPY; the error names the earliest
        /// line that repeats one.
        func write(_ prepared: any Sendable, heads: [(stream: String, version: Int)]) throws {
            let content = prepared as! PostgresImportBuilder.Content
            if content.count > 0 {
                let rows = content.rows
                let columns = PostgresImportBuilder.columns(traced: start.layout == .traced)
                do {
                    try session.withAsyncConnection(timeout: log.options.operationTimeout) { connection in
                        try await connection.copyFrom(
                            table: "events", columns: columns, format: .text(.init()), logger: quietLogger
                        ) { writer in
                            var offset = 0
                            let chunk = 1 << 20
                            while offset < rows.readableBytes {
                                let length = min(chunk, rows.readableBytes - offset)
                                try await writer.write(rows.getSlice(at: rows.readerIndex + offset, length: length)!)
                                offset += length
                            }
                        }
                    }
                } catch {
                    guard case .io(_, let detail) = error, detail.contains("SQLSTATE 23505") else { throw error }
                    throw try duplicate(in: content)
                }
                last = content.lastPosition
            }
            var statements: [PostgresQuery] = []
            if !content.snapshotStreams.isEmpty {
                statements.append(
                    """
                    INSERT INTO \(unescaped: log.table("snapshots")) (stream, version, position, reducer_version, state)
                    SELECT s, v, p, \(Int32(StreamState.reducerVersion)), b
                    FROM unnest(\(content.snapshotStreams)::text[], \(content.snapshotVersions)::int8[], \(content.snapshotPositions)::int8[],
                        \(content.snapshotStates)::bytea[]) AS u(s, v, p, b)
                    ON CONFLICT (stream, version) DO UPDATE SET position = EXCLUDED.position, state = EXCLUDED.state
                    """)
            }
            if !heads.isEmpty { statements.append(upsert(heads)) }
            if !statements.isEmpty { _ = try session.queries(statements, during: "importing") }
        }

        /// The refusal for a COPY that met an event id twice: the batch's earliest line whose id is in
        /// the log already, or that repeats an earlier line's.
        private func duplicate(in content: PostgresImportBuilder.Content) throws -> FlowLogError {
            if session.connection != nil { _ = try? session.query("ROLLBACK") }
            var seen: [EventID: Int] = [:]
            var candidates: [(line: Int, id: EventID, earlierLine: Int?)] = []
            for (index, id) in content.ids.enumerated() {
                if let earlier = seen[id] {
                    candidates.append((content.lines[index], id, earlier))
                } else {
                    seen[id] = content.lines[index]
                }
            }
            let ids = Array(seen.keys)
            let existing = try session.query(
                """
                SELECT event_id::text, position FROM \(unescaped: log.table("events")) WHERE event_id = ANY(\(ids.map(PostgresEventID.init))::uuid[])
                """
            ).rows.map { try $0.decode((String, Int64).self) }
            for (text, position) in existing {
                if let id = EventID(text), let line = seen[id] { candidates.append((line, id, -Int(position))) }
            }
            guard let first = candidates.min(by: { $0.line < $1.line }) else {
                return .refusedImport(
                    ImportError(
                        line: content.lines.first ?? 0,
                        problem:
                            "an event id in lines \(content.lines.first ?? 0)…\(content.lines.last ?? 0) repeats one of an earlier line or of the log"
                    ))
            }
            if let earlier = first.earlierLine, earlier < 0 {
                return .refusedImport(
                    ImportError(line: first.line, problem: "its event id \(first.id) is already in the log, at position \(-earlier)"))
            }
            if let earlier = first.earlierLine {
                return .refusedImport(
                    ImportError(line: first.line, problem: "its event id \(first.id) is already in the log, on line \(earlier) of this import"))
            }
            return .refusedImport(ImportError(line: first.line, problem: "its event id \(first.id) repeats one of an earlier line of this import"))
        }
    }
#endif
