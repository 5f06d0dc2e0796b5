import FlowDomain

/// The command-field and event-field reference (`flowlog schema commands|events`), written from
/// the kinds' declarations, so it is complete for every kind the build knows.
public enum KindSchema {
    /// Every command kind with its actor, command line and fields.
    public static func commandsJSON(into json: inout JSONWriter) {
        json.beginObject()
        json.key("commands"); json.beginArray()
        for info in CommandKinds.all {
            let declaration = info.declaration
            json.beginObject()
            json.key("type"); json.string(info.typeName)
            json.key("actor"); json.string(declaration.actor.rawValue)
            json.key("command"); json.string("flowlog \(declaration.group) \(declaration.verb)")
            json.key("summary"); json.string(declaration.summary.description)
            json.key("fields"); json.beginArray()
            for field in info.fields {
                json.beginObject()
                json.key("name"); json.string(field.field.nameText)
                json.key("type"); json.string(field.field.type.name)
                json.key("required"); json.bool(!field.optional)
                json.key("option"); json.string("--\(field.field.option)")
                json.key("summary"); json.string(field.field.summary.description)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    /// Every event kind with its tag, its fields and their CSV columns.
    public static func eventsJSON(into json: inout JSONWriter) {
        json.beginObject()
        json.key("events"); json.beginArray()
        for info in EventKinds.all {
            json.beginObject()
            json.key("type"); json.string(info.typeName)
            json.key("tag"); json.int(Int(info.declaration.tag))
            json.key("summary"); json.string(info.declaration.summary.description)
            json.key("fields"); json.beginArray()
            for field in info.fields {
                json.beginObject()
                json.key("name"); json.string(field.field.nameText)
                json.key("type"); json.string(field.field.type.name)
                json.key("nullable"); json.bool(field.optional)
                json.key("column"); json.string(field.field.column?.name.description)
                json.key("summary"); json.string(field.field.summary.description)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    /// The same reference for a person: one block per kind, one line per field.
    public static func commandsText() -> String {
        CommandKinds.all.map { info in
            let declaration = info.declaration
            let head = "\(info.typeName)  (\(declaration.actor.rawValue); flowlog \(declaration.group) \(declaration.verb))  \(declaration.summary)"
            let rows = info.fields.map { field in
                [field.field.nameText, field.field.type.name, field.optional ? "optional" : "required",
                 "--\(field.field.option)", field.field.summary.description]
            }
            return ([head] + table(rows)).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    public static func eventsText() -> String {
        EventKinds.all.map { info in
            let head = "\(info.typeName)  (tag \(info.declaration.tag))  \(info.declaration.summary)"
            let rows = info.fields.map { field in
                [field.field.nameText, field.field.type.name, field.optional ? "nullable" : "always",
                 "csv \(field.field.column?.name.description ?? "-")", field.field.summary.description]
            }
            return ([head] + table(rows)).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// Rows as aligned columns, indented under their kind.
    private static func table(_ rows: [[String]]) -> [String] {
        guard let width = rows.first?.count else { return ["  (no fields)"] }
        let widths = (0..<width - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            "  " + row.enumerated().map { index, cell in
                index < widths.count ? cell + String(repeating: " ", count: widths[index] - cell.count + 2) : cell
            }.joined()
        }
    }
}
