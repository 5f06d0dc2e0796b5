import FlowDomain
import FlowLogTesting
import Foundation

/// Crafted exports dropped into `POST /sessions` (a read scope is enough): numbers no field holds
/// in events' data, positions and versions; lines out of order; garbage. An export that is
/// refused must be 400; one at the edge of what is lawful (a position of 2^63-1) may open a
/// session, whose reads (`HostileRequestsTests` sends them) must then answer without a 5xx.
extension HostileCatalogue {
    /// One exported event line with `position`, `version` and the data members given as JSON text.
    static func eventLine(
        position: String, version: String = "1", stream: String = "crafted", type: String, data: [(String, String)],
        schemaVersion: String = "1", eventVersion: Int = 1, eventId: Int = 0
    ) -> String {
        let hex = String(eventId, radix: 16)
        let id = "01a1fe6e-ef04-7e85-b661-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        let members = data.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
        return #"{"position":"# + position + #","stream":""# + stream + #"","version":"# + version + #","eventId":""# + id
            + #"","type":""# + type + #"","actor":"user","timestamp":"2026-11-21T14:07:25.444001Z","schemaVersion":"# + schemaVersion
            + (eventVersion > 1 ? #","eventVersion":\#(eventVersion)"# : "") + #","data":{"# + members + "}}"
    }

    /// The lawful data of an event kind, `hostile` put in.
    mutating func eventData(_ info: EventKindInfo, hostile: (String, String)? = nil) -> [(String, String)] {
        var data: [(String, String)] = []
        for field in info.fields {
            let name = field.field.nameText
            if name == hostile?.0 { data.append(hostile!) } else if !field.optional { data.append((name, lawful(field.field.type))) }
        }
        return data
    }

    static func session(_ lines: [String], label: String, expect: HostileRequest.Expectation) -> HostileRequest {
        .post(
            .craftedExport, "/sessions", Array((lines.joined(separator: "\n") + "\n").utf8), contentType: "application/x-ndjson",
            token: HostileRequest.readToken, label: label, expect: expect)
    }

    /// A number that fits 64 bits may be lawful in an export (the reads that follow must then
    /// hold); any other must be refused.
    static func fitsInt64(_ literal: String) -> Bool { Int(literal) != nil }

    mutating func craftedExports() -> [HostileRequest] {
        var requests: [HostileRequest] = []
        // Every integer member of every event kind's data, each huge number; then the same event
        // after a lawful history of the stream (a cart with a line in it), so folding meets it.
        let added = EventKinds.all.first { $0.typeName == "cart.productAdded" }!
        for info in EventKinds.all where info.typeName.hasPrefix("cart.") || info.typeName.hasPrefix("home.") || info.typeName.hasPrefix("flowlog:") {
            for field in info.fields where Self.isNumber(field.field.type) {
                for number in Self.hugeNumbers {
                    let expect: HostileRequest.Expectation = Self.fitsInt64(number) ? .notServerError : .clientError
                    var data = eventData(info, hostile: (field.field.nameText, number))
                    if info.typeName == "cart.productAdded" || info.typeName.hasPrefix("cart.product") {
                        data = data.map { $0.0 == "productId" ? ($0.0, "\"p\"") : $0 }
                    }
                    // The kind's current version, which has every field `info` lists.
                    let version = info.versions.count
                    let alone = Self.eventLine(position: "1", type: info.typeName, data: data, eventVersion: version)
                    requests.append(Self.session([alone], label: "\(info.typeName).\(field.field.nameText)=\(number.prefix(24))", expect: expect))
                    let history = [
                        Self.eventLine(
                            position: "1", type: added.typeName, data: eventData(added).map { $0.0 == "productId" ? ($0.0, "\"p\"") : $0 }, eventId: 1
                        ),
                        Self.eventLine(position: "2", version: "2", type: info.typeName, data: data, eventVersion: version, eventId: 2),
                    ]
                    requests.append(
                        Self.session(history, label: "after a line: \(info.typeName).\(field.field.nameText)=\(number.prefix(24))", expect: expect))
                }
            }
        }
        // The envelope's numbers.
        let launched = EventKinds.all.first { $0.typeName == "app.launched" }!
        let data = eventData(launched)
        for number in Self.hugeNumbers + ["0", "-1", "1.0", "\"1\"", "null", "true", "[1]", "{}"] {
            let lawfulPosition = Self.fitsInt64(number) && Int(number)! >= 1
            requests.append(
                Self.session(
                    [Self.eventLine(position: number, type: launched.typeName, data: data)],
                    label: "position \(number.prefix(24))", expect: lawfulPosition ? .notServerError : .clientError))
            requests.append(
                Self.session(
                    [Self.eventLine(position: "1", version: number, type: launched.typeName, data: data)],
                    label: "version \(number.prefix(24))", expect: number == "1" ? .notServerError : .clientError))
            requests.append(
                Self.session(
                    [Self.eventLine(position: "1", type: launched.typeName, data: data, schemaVersion: number)],
                    label: "schemaVersion \(number.prefix(24))", expect: number == "null" ? .notServerError : .clientError))
        }
        // The last positions 64 bits hold, then one past them; the same stream's versions.
        let top = Int.max
        requests.append(
            Self.session(
                [
                    Self.eventLine(position: "\(top - 1)", type: launched.typeName, data: data, eventId: 1),
                    Self.eventLine(position: "\(top)", version: "2", type: launched.typeName, data: data, eventId: 2),
                ],
                label: "positions 2^63-2 and 2^63-1", expect: .notServerError))
        requests.append(
            Self.session(
                [
                    Self.eventLine(position: "\(top)", type: launched.typeName, data: data, eventId: 1),
                    Self.eventLine(position: "9223372036854775808", version: "2", type: launched.typeName, data: data, eventId: 2),
                ],
                label: "position 2^63 after 2^63-1", expect: .clientError))
        // Out of order, repeated, skipped.
        for (positions, versions) in [
            ([5, 3], [1, 2]), ([1, 1], [1, 2]), ([1, 2], [2, 1]), ([1, 2], [1, 1]), ([1, 2], [1, 3]), ([2, 1], [1, 2]),
            ([top, 1], [1, 2]), ([1, top], [1, top]),
        ] {
            let lines = zip(positions, versions).enumerated().map { index, pair in
                Self.eventLine(position: "\(pair.0)", version: "\(pair.1)", type: launched.typeName, data: data, eventId: index)
            }
            requests.append(Self.session(lines, label: "positions \(positions) versions \(versions)", expect: .clientError))
        }
        requests.append(
            Self.session(
                [
                    Self.eventLine(position: "1", type: launched.typeName, data: data, eventId: 7),
                    Self.eventLine(position: "2", version: "2", type: launched.typeName, data: data, eventId: 7),
                ],
                label: "one event id twice", expect: .clientError))
        // Garbage.
        let good = Self.eventLine(position: "1", type: launched.typeName, data: data)
        for garbage in [
            "hello", "{}", "null", "[]", "[1,2]", "1", "\"text\"", #"{"position":1}"#, good + "x", good + good, String(good.dropLast()),
            "position,stream,version", good.replacingOccurrences(of: "app.launched", with: "app.unknown"),
            good.replacingOccurrences(of: "\"actor\":\"user\"", with: "\"actor\":\"root\""),
            good.replacingOccurrences(of: "2026-11-21T14:07:25.444001Z", with: "2026-13-45T99:99:99Z"),
            good.replacingOccurrences(of: "2026-11-21T14:07:25.444001Z", with: "99999999999-11-21T14:07:25Z"),
            String(repeating: " ", count: 1000), "",
        ] {
            requests.append(Self.session([garbage], label: "garbage \(garbage.prefix(40))", expect: .clientError))
        }
        // A member no version of the kind has is passed over by the reader (no field takes it):
        // lawful, and never a trap however large its number.
        requests.append(
            Self.session(
                [good.replacingOccurrences(of: "\"data\":{", with: "\"data\":{\"extra\":99999999999999999999,")],
                label: "an unknown data member of 20 digits", expect: .notServerError))
        for count in [1, 100, 10_000] {
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            requests.append(
                .post(
                    .craftedExport, "/sessions", bytes, contentType: "application/x-ndjson", token: HostileRequest.readToken,
                    label: "\(count) random bytes"))
        }
        return requests
    }
}
