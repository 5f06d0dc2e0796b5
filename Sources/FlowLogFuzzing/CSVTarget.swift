import Deciding
import FlowDomain
import FlowLogHistory
import FlowLogStore

/// The CSV export (`export --format csv`). FlowLog reads no CSV: what it writes is what a warehouse
/// reads, so the target checks the writer on any event an import or a log could hold. The first
/// byte chooses the event: even, one built from the input (as a stored record holds it); odd, the
/// event the rest of the input reads as, as an export line.
///
/// Writing never traps, and a strict RFC 4180 reader (`RFC4180`) reads the header and the row back
/// into one cell per column, each the value the event holds.
enum CSVTarget {
    static let target = FuzzTarget(
        name: "csv",
        checks:
            "any event a record or an export line holds, written as CSV: never a trap; a strict RFC 4180 reader reads back one cell per column, each the event's value",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        let record: RecordedEvent
        if input.byte() & 1 == 0 {
            record = FuzzedEvents.record(&input, position: 1 + Int(input.uint64() >> 2))
        } else {
            guard let read = try? RecordedEventJSON.decode(input.rest()), !read.isForgotten else { return }
            record = read
        }
        var writer = CSVRowWriter(capacity: 1_024)
        writer.writeHeader()
        writer.write(record)
        guard let rows = RFC4180.records(writer.bytes) else {
            fuzzCheck(false, "\(record) was written as CSV a strict reader refuses: \(String(decoding: writer.bytes, as: UTF8.self))")
            return
        }
        fuzzCheck(rows.count == 2, "one event made \(rows.count) CSV records")
        fuzzCheck(rows[0].map { String(decoding: $0, as: UTF8.self) } == CSVSchema.columns.map(\.name), "the header is not the schema's columns")
        fuzzCheck(rows[1].count == CSVSchema.columns.count, "a row of \(rows[1].count) cells for \(CSVSchema.columns.count) columns")
        let expected = ExpectedCells.row(record)
        for (index, cell) in expected.enumerated() where rows[1][index] != Array(cell.utf8) {
            fuzzCheck(false, "column \(CSVSchema.columns[index].name) reads \(String(decoding: rows[1][index], as: UTF8.self)), not \(cell)")
        }
    }
}

/// The cells a row of `record` should read as: the envelope's, then each event column's (empty where
/// the event has no such field).
enum ExpectedCells {
    static func row(_ record: RecordedEvent) -> [String] {
        let kind = EventKinds.info(of: record.event)
        var cells = [
            record.eventId.description, kind.typeName, record.stream, String(record.position), String(record.version),
            record.actor.rawValue, record.timestamp.rfc3339, record.correlationId ?? "", record.causationId ?? "", record.traceContext?.traceID ?? "",
            String(record.schemaVersion), String(kind.version),
        ]
        var filler = Filler(cells: [String](repeating: "", count: EventKinds.columns.count))
        try? record.event.visitPayload(&filler)
        cells += filler.cells
        return cells
    }

    private struct Filler: EventPayloadVisitor, FieldVisitor {
        var cells: [String]

        mutating func visit<Payload: EventPayload>(_ payload: Payload) throws {
            var fields = payload
            try fields.visitFields(&self)
        }

        private mutating func set(_ field: Field, _ text: String) {
            guard let column = field.column, let index = EventKinds.columns.firstIndex(where: { $0.order == column.order }) else { return }
            cells[index] = text
        }

        mutating func visit(_ field: Field, _ value: inout String) { set(field, value) }
        mutating func visit(_ field: Field, _ value: inout String?) { if let value { set(field, value) } }
        mutating func visit(_ field: Field, _ value: inout Int) { set(field, String(value)) }
        mutating func visit(_ field: Field, _ value: inout Int?) { if let value { set(field, String(value)) } }
        mutating func visit(_ field: Field, _ value: inout Bool) { set(field, value ? "true" : "false") }
    }
}
