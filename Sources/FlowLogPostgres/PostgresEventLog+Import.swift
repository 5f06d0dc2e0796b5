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

    /// Turns a run of imported events into the lines of COPY's text format (tab-separated, `\N` for
    /// NULL, backslashes doubled, bytea as `\\x` and hex), on the preparing thread.
    final class PostgresImportBuilder: ImportBatchBuilder {
        /// The columns each line fills, the trace context's last (only a log of schema 5 has them).
        static func columns(traced: Bool) -> [String] {
            [
                "position", "stream", "version", "event_id", "type", "actor", "recorded_at",
                "correlation_id", "causation_id", "data", "fingerprint", "record",
            ] + (traced ? ["traceparent", "tracestate"] : [])
        }

        private let traced: Bool

        init(traced: Bool) { self.traced = traced }

        struct Content: Sendable {
            var rows = ByteBuffer()
            var count = 0
            var ids: [EventID] = []
            var lines: [Int] = []
            var lastPosition = 0
            var snapshotStreams: [String] = []
            var snapshotVersions: [Int64] = []
            var snapshotPositions: [Int64] = []
            var snapshotStates: [ByteBuffer] = []
        }

        private var content = Content()
        /// The batch's COPY lines, apart from `content` so that appending to them never copies them.
        private var rows = ByteBuffer()
        private var json = JSONWriter(capacity: 256)
        /// The line being built, reused.
        private var line: [UInt8] = []
        private static let hex = Array("0123456789abcdef".utf8)

        var count: Int { content.count }

        func add(_ event: RecordedEvent, record: UnsafeRawBufferPointer, fingerprint: UInt64, line number: Int, streamOrdinal: Int) {
            startLine(event, stream: event.stream)
            line.append(UInt8(ascii: "\t"))
            if let correlation = event.correlationId { Self.appendText(correlation.utf8, to: &line) } else { Self.append("\\N", to: &line) }
            line.append(UInt8(ascii: "\t"))
            if let causation = event.causationId { Self.appendText(causation.utf8, to: &line) } else { Self.append("\\N", to: &line) }
            line.append(UInt8(ascii: "\t"))
            json.reset()
            FlowJSON.writeEventData(event.event, asStored: true, into: &json)
            Self.appendText(json.bytes, to: &line)
            line.append(UInt8(ascii: "\t"))
            Self.append(String(Int64(bitPattern: fingerprint)), to: &line)
            finish(event, record: record, line: number)
        }

        /// A forgotten event (an export's tombstone): its row keeps the position, version, event id,
        /// type, actor and time; stream, correlation and causation ids, data and fingerprint are NULL,
        /// as `forget` leaves them (docs/postgres.md). Only a log of schema 3 gets here.
        func addForgotten(_ event: RecordedEvent, record: UnsafeRawBufferPointer, line number: Int) {
            startLine(event, stream: nil)
            Self.append("\t\\N\t\\N\t\\N\t\\N", to: &line)
            finish(event, record: record, line: number)
        }

        /// A line's first columns: position, stream (`\N` for none), version, event id, type, actor, time.
        private func startLine(_ event: RecordedEvent, stream: String?) {
            line.removeAll(keepingCapacity: true)
            Self.append(String(event.position), to: &line)
            line.append(UInt8(ascii: "\t"))
            if let stream { Self.appendText(stream.utf8, to: &line) } else { Self.append("\\N", to: &line) }
            line.append(UInt8(ascii: "\t"))
            Self.append(String(event.version), to: &line)
            line.append(UInt8(ascii: "\t"))
            Self.append(event.eventId.description, to: &line)
            line.append(UInt8(ascii: "\t"))
            Self.append(event.event.typeName, to: &line)
            line.append(UInt8(ascii: "\t"))
            Self.append(event.actor.rawValue, to: &line)
            line.append(UInt8(ascii: "\t"))
            Self.append(PostgresTimestamp.text(event.timestamp), to: &line)
        }

        /// The line's last column (the record, as bytea's hex text), then the line into the batch.
        private func finish(_ event: RecordedEvent, record: UnsafeRawBufferPointer, line number: Int) {
            line.append(UInt8(ascii: "\t"))
            Self.append("\\\\x", to: &line)
            // Hex through a pointer: a byte at a time through Array or ByteBuffer costs a call each
            // (many in a debug build, where the tests run).
            let start = line.count
            line.append(contentsOf: repeatElement(0, count: record.count * 2))
            line.withUnsafeMutableBufferPointer { buffer in
                Self.hex.withUnsafeBufferPointer { digits in
                    var index = start
                    for byte in record {
                        buffer[index] = digits[Int(byte >> 4)]
                        buffer[index + 1] = digits[Int(byte & 0x0F)]
                        index += 2
                    }
                }
            }
            if traced {
                line.append(UInt8(ascii: "\t"))
                if let context = event.traceContext { Self.append(context.traceparent, to: &line) } else { Self.append("\\N", to: &line) }
                line.append(UInt8(ascii: "\t"))
                if let state = event.traceContext?.state { Self.appendText(state.utf8, to: &line) } else { Self.append("\\N", to: &line) }
            }
            line.append(UInt8(ascii: "\n"))
            rows.writeBytes(line)
            content.count += 1
            content.ids.append(event.eventId)
            content.lines.append(number)
            content.lastPosition = event.position
        }

        /// Nothing: PostgreSQL's snapshots hold the whole state (`AppendTransaction.keep`).
        func keep(_ row: KeptRow, number: Int, stream: String, version: Int) {}

        func snapshot(_ state: StreamState, stream: String, version: Int, position: Int) {
            content.snapshotStreams.append(stream)
            content.snapshotVersions.append(Int64(version))
            content.snapshotPositions.append(Int64(position))
            content.snapshotStates.append(PostgresEventLog.snapshotBytes(state))
        }

        func take() -> any Sendable {
            var taken = content
            taken.rows = rows
            content = Content()
            rows = ByteBuffer()
            return taken
        }

        private static func append(_ text: String, to line: inout [UInt8]) {
            line.append(contentsOf: text.utf8)
        }

        /// Text as COPY's text format reads it: backslash, tab, newline and carriage return escaped.
        private static func appendText<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to line: inout [UInt8]) {
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"):
                    line.append(UInt8(ascii: "\\"))
                    line.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "\t"):
                    line.append(UInt8(ascii: "\\"))
                    line.append(UInt8(ascii: "t"))
                case UInt8(ascii: "\n"):
                    line.append(UInt8(ascii: "\\"))
                    line.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"):
                    line.append(UInt8(ascii: "\\"))
                    line.append(UInt8(ascii: "r"))
                default: line.append(byte)
                }
            }
        }
    }
#endif
