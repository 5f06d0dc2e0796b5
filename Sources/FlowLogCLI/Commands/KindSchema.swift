import Deciding
public import FlowLogBasics
import FlowLogStore

/// The command-field and event-field reference (`flowlog schema commands|events`), written from
/// the kinds' declarations, so it is complete for every kind the build knows.
public enum KindSchema {
    /// Every command kind with its actor, command line and fields.
    public static func commandsJSON(into json: inout JSONWriter) {
        json.object { json in
            json.key("commands")
            json.array(LogDecider.Command.kinds.all) { json, info in
                let declaration = info.declaration
                json.object { json in
                    json.field("type", info.typeName)
                    json.field("actor", declaration.actor.rawValue)
                    json.field("command", "\(Program.name) \(declaration.group) \(declaration.verb)")
                    json.field("summary", declaration.summary.description)
                    json.key("fields")
                    json.array(info.fields) { json, field in
                        json.object { json in
                            json.field("name", field.field.nameText)
                            json.field("type", field.field.type.name)
                            json.field("required", !field.optional)
                            json.field("option", "--\(field.field.option)")
                            json.field("summary", field.field.summary.description)
                        }
                    }
                }
            }
        }
    }

    /// Every event kind with its tag, its current version, its fields and their CSV columns, and
    /// each version it had: what changed, the log schema it needs and its fields.
    public static func eventsJSON(into json: inout JSONWriter) {
        json.object { json in
            json.key("events")
            json.array(LogDecider.Event.kinds.all) { json, info in
                json.object { json in
                    json.field("type", info.typeName)
                    json.field("tag", Int(info.declaration.tag))
                    json.field("version", info.version)
                    json.field("summary", info.declaration.summary.description)
                    json.key("fields")
                    fieldsJSON(info.fields, into: &json)
                    json.key("versions")
                    json.array(info.versions) { json, version in
                        json.object { json in
                            json.field("version", version.version)
                            json.field("logSchema", version.logSchema)
                            json.field("change", version.change.isEmpty ? nil : version.change)
                            json.key("fields")
                            fieldsJSON(version.fields, into: &json)
                        }
                    }
                }
            }
        }
    }

    private static func fieldsJSON(_ fields: [FieldDescription], into json: inout JSONWriter) {
        json.array(fields) { json, field in
            json.object { json in
                json.field("name", field.field.nameText)
                json.field("type", field.field.type.name)
                json.field("nullable", field.optional)
                json.field("column", field.field.column?.name.description)
                json.field("summary", field.field.summary.description)
            }
        }
    }

    /// The same reference for a person: one block per kind, one line per field.
    public static func commandsText() -> String {
        LogDecider.Command.kinds.all.map { info in
            let declaration = info.declaration
            let head =
                "\(info.typeName)  (\(declaration.actor.rawValue); \(Program.name) \(declaration.group) \(declaration.verb))  \(declaration.summary)"
            let rows = info.fields.map { field in
                [
                    field.field.nameText, field.field.type.name, field.optional ? "optional" : "required",
                    "--\(field.field.option)", field.field.summary.description,
                ]
            }
            return ([head] + table(rows)).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    public static func eventsText() -> String {
        LogDecider.Event.kinds.all.map { info in
            let head = "\(info.typeName)  (tag \(info.declaration.tag), version \(info.version))  \(info.declaration.summary)"
            let rows = info.fields.map { field in
                [
                    field.field.nameText, field.field.type.name, field.optional ? "nullable" : "always",
                    "csv \(field.field.column?.name.description ?? "-")", field.field.summary.description,
                ]
            }
            // What each version after the first changed, and the log schema a log needs to hold it.
            let history = info.versions.dropFirst().map { "  version \($0.version) (log schema \($0.logSchema)): \($0.change)" }
            return ([head] + table(rows) + history).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// Rows as aligned columns, indented under their kind.
    private static func table(_ rows: [[String]]) -> [String] {
        guard let width = rows.first?.count else { return ["  (no fields)"] }
        let widths = (0..<width - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            "  "
                + row.enumerated().map { index, cell in
                    index < widths.count ? cell + String(repeating: " ", count: widths[index] - cell.count + 2) : cell
                }.joined()
        }
    }
}
