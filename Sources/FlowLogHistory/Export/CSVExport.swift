import Deciding
import FlowLogBasics
package import FlowLogStore

/// The flat, warehouse-friendly CSV schema: one row per event, snake_case columns, money in integer
/// cents, every event field in a typed column of its own (empty where the event has no such field).
public enum CSVSchema {
    public struct Column: Sendable {
        public let name: String
        /// The SQL type a warehouse should give the column.
        public let type: String
        public let meaning: String
    }

    /// The envelope's columns, then every event column the kinds' fields declare, in its order.
    public static let columns: [Column] =
        envelopeColumns
        + LogDecider.Event.kinds.columns.map {
            Column(name: $0.name.description, type: $0.sqlType.description, meaning: $0.meaning.description)
        }

    private static let envelopeColumns: [Column] = [
        Column(name: "message_id", type: "UUID", meaning: "the event id (unique; use it to deduplicate)"),
        Column(name: "event", type: "VARCHAR", meaning: "the event type, such as cart.productAdded"),
        Column(name: "stream", type: "VARCHAR", meaning: "the stream (one session) the event belongs to"),
        Column(name: "position", type: "BIGINT", meaning: "global position, 1-based, contiguous across the log"),
        Column(name: "version", type: "BIGINT", meaning: "version within the stream, 1-based, contiguous"),
        Column(name: "actor", type: "VARCHAR", meaning: "user or system"),
        Column(name: "timestamp", type: "TIMESTAMP", meaning: "when it was recorded, RFC 3339 in UTC, microseconds"),
        Column(name: "correlation_id", type: "VARCHAR", meaning: "the correlation id, where set"),
        Column(name: "causation_id", type: "VARCHAR", meaning: "the id of the command that caused it, where set"),
        Column(name: "trace_id", type: "VARCHAR", meaning: "the W3C trace id of the command that caused it, where kept (32 hex digits)"),
        Column(name: "schema_version", type: "INTEGER", meaning: "the storage schema the event was written with"),
        Column(name: "event_version", type: "INTEGER", meaning: "the version of the event kind's fields in this row (always the current one)"),
    ]

    /// The column list, as `flowlog export --format csv --schema` prints it.
    public static var description: String {
        let width = columns.map(\.name.count).max()!
        return columns.map { column in
            column.name + String(repeating: " ", count: width - column.name.count + 2) + column.type
                + String(repeating: " ", count: 11 - column.type.count) + column.meaning
        }.joined(separator: "\n")
    }
}

/// Writes events as CSV rows with RFC 4180 quoting (a field with a comma, a quote, CR or LF is quoted,
/// quotes doubled) and `\n` line ends.
package struct CSVRowWriter {
    package private(set) var bytes: [UInt8] = []
    /// This row's event cells, one per event column; reused from row to row.
    private var cells = [Cell](repeating: .empty, count: LogDecider.Event.kinds.columns.count)
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    private enum Cell {
        case empty
        case text(String)
        case int(Int)
        case bool(Bool)
    }

    /// Where each event column stands among the event cells, by the column's `order`.
    private static let cellIndex: [Int: Int] = Dictionary(uniqueKeysWithValues: LogDecider.Event.kinds.columns.enumerated().map { ($1.order, $0) })

    /// Puts each field of an event into its column's cell.
    private struct CellFiller: EventPayloadVisitor, FieldVisitor {
        let cells: UnsafeMutableBufferPointer<Cell>

        mutating func visit<Payload: EventPayload>(_ payload: Payload) {
            var fields = payload
            try! fields.visitFields(&self)
        }

        private func set(_ field: Field, _ cell: Cell) {
            guard let column = field.column, let index = CSVRowWriter.cellIndex[column.order] else { return }
            cells[index] = cell
        }

        mutating func visit(_ field: Field, _ value: inout String) { set(field, .text(value)) }
        mutating func visit(_ field: Field, _ value: inout String?) { if let value { set(field, .text(value)) } }
        mutating func visit(_ field: Field, _ value: inout Int) { set(field, .int(value)) }
        mutating func visit(_ field: Field, _ value: inout Int?) { if let value { set(field, .int(value)) } }
        mutating func visit(_ field: Field, _ value: inout Bool) { set(field, .bool(value)) }
    }

    package init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    package mutating func writeHeader() {
        bytes.append(contentsOf: CSVSchema.columns.map(\.name).joined(separator: ",").utf8)
        bytes.append(0x0A)
    }

    package mutating func write(_ record: RecordedEvent) {
        ByteFormatting.appendUUID(record.eventId, to: &bytes)
        let kind = LogDecider.Event.kinds.info(of: record.event)
        comma()
        text(kind.typeName)
        comma()
        text(record.stream)
        comma()
        int(record.position)
        comma()
        int(record.version)
        comma()
        text(record.actor.rawValue)
        comma()
        ByteFormatting.appendRFC3339(record.timestamp, to: &bytes)
        comma()
        text(record.correlationId)
        comma()
        text(record.causationId)
        comma()
        text(record.traceContext?.traceID)
        comma()
        int(record.schemaVersion)
        comma()
        int(kind.version)
        cells.withUnsafeMutableBufferPointer { cells in
            for index in cells.indices { cells[index] = .empty }
            var filler = CellFiller(cells: cells)
            try! record.event.visitPayload(&filler)
        }
        for cell in cells {
            comma()
            switch cell {
            case .empty: break
            case .text(let value): text(value)
            case .int(let value): int(value)
            case .bool(let value): bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
            }
        }
        bytes.append(0x0A)
    }

    @inline(__always)
    private mutating func comma() { bytes.append(UInt8(ascii: ",")) }

    private mutating func int(_ value: Int?) {
        guard let value else { return }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let start = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(magnitude % 10) + 48)
            magnitude /= 10
        }
        bytes[start...].reverse()
    }

    private mutating func text(_ value: String?) {
        guard let value else { return }
        let utf8 = value.utf8
        let needsQuotes =
            utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
            || utf8.first == UInt8(ascii: " ") || utf8.last == UInt8(ascii: " ") || utf8.isEmpty
        guard needsQuotes else {
            bytes.append(contentsOf: utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
