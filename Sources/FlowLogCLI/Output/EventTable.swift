import FlowLogBasics
import FlowLogStore

/// The table `flowlog log` prints: one row per event, columns as wide as their widest cell.
final class EventTable {
    private var table = TextTable(
        header: ["POSITION", "STREAM", "VERSION", "TYPE", "ACTOR", "TIMESTAMP", "DATA"], rightAligned: [0, 2],
        // Only positions, streams and versions can be wider than these (`log --follow`).
        minimumWidths: [8, 6, 7, LogDecider.Event.kinds.typeNames.map(\.count).max() ?? 4, 6, 27])

    func add(_ record: RecordedEvent) {
        var json = JSONWriter()
        FlowJSON.writeEventData(record.event, into: &json)
        // Escaped before the widths are measured, so the columns line up as shown.
        table.add([
            String(record.position), TerminalText.escaped(record.stream), String(record.version), record.event.typeName,
            record.actor.rawValue, record.timestamp.rfc3339, json.text,
        ])
    }

    func lines() -> [String] { table.lines(empty: "(no events)") }

    /// The rows added since the last call (and the header, the first time), for `log --follow`.
    func takeLines(withHeader: Bool) -> [String] { table.takeLines(withHeader: withHeader) }
}
