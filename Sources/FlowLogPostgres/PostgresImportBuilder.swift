#if Network
    import FlowLogBasics
    import FlowLogStore
    import PostgresNIO
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
