import FlowLog

/// The table `flowlog log` prints: one row per event, columns as wide as their widest cell.
final class EventTable {
    private var rows: [[String]] = []

    func add(_ record: RecordedEvent) {
        var json = JSONWriter()
        FlowJSON.writeEventData(record.event, into: &json)
        // Escaped before the widths are measured, so the columns line up as shown.
        rows.append([String(record.position), TerminalText.escaped(record.stream), String(record.version), record.event.typeName,
                     record.actor.rawValue, record.timestamp.rfc3339, json.text])
    }

    func lines() -> [String] {
        let header = ["POSITION", "STREAM", "VERSION", "TYPE", "ACTOR", "TIMESTAMP", "DATA"]
        guard !rows.isEmpty else { return ["(no events)"] }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max()! }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : TextPadding.pad(row[column], widths[column], right: column == 0 || column == 2)
            }.joined(separator: "  ")
        }
    }
}
