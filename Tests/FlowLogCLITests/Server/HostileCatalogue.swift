import Deciding
import FlowDomain
import FlowLogTesting
import Foundation

/// The hostile requests of `HostileRequestsTests`, made from a seed so that a failure can be
/// replayed: commands with numbers no field holds, nesting, broken UTF-8, bodies cut short or too
/// large, wrong content types, huge heads and numbers in query strings and paths. Crafted exports
/// into sessions are `HostileExports`'.
struct HostileCatalogue {
    var rng: SplitMix64
    /// A stream the served log holds, so that reads get past "no such stream" to the numbers.
    let stream: String

    init(seed: UInt64, stream: String) {
        rng = SplitMix64(seed: seed)
        self.stream = stream
    }

    /// Numbers past every field: past 64 bits, negative, exponents, fractions, 2^63 and its neighbours.
    static let hugeNumbers = [
        "99999999999999999999", "-99999999999999999999", "1e999", "-1e999", "1E400", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "9223372036854775807", "-9223372036854775808",
        "1" + String(repeating: "0", count: 400), "123456789012345678901234567890.5", "-0.0000001e-999", "4.2e18",
    ]

    /// A lawful value of a field of `type`, as JSON text.
    mutating func lawful(_ type: FieldType) -> String {
        switch type {
        case .identifier: "\"h-\(rng.next() % 1000)\""
        case .text: "\"Mug\""
        case .cents: "\(1 + rng.next() % 5000)"
        case .quantity: "\(1 + rng.next() % 9)"
        case .percent: "\(1 + rng.next() % 99)"
        case .amount: "\(1 + rng.next() % 500)"
        case .tab: "\(rng.next() % 2)"
        case .currency: "\"EUR\""
        case .bool: "false"
        default: type.form == .integer ? "1" : "\"x\""
        }
    }

    static func isNumber(_ type: FieldType) -> Bool { type.form == .integer }

    /// A command of `info`'s kind with lawful fields, `hostile` (member name, JSON text) put in.
    /// Of the optional number fields only the first goes in, so that a discount names one of
    /// percent and amountOff.
    mutating func command(_ info: CommandKindInfo, stream: String, hostile: (String, String)?) -> String {
        var members = [("type", "\"\(info.typeName)\""), ("stream", "\"\(stream)\"")].map { $0.0 == hostile?.0 ? hostile! : $0 }
        var optionalNumberGiven = false
        for field in info.fields {
            let name = field.field.nameText
            if name == hostile?.0 {
                members.append(hostile!)
                optionalNumberGiven = optionalNumberGiven || field.optional
                continue
            }
            if field.optional {
                guard Self.isNumber(field.field.type), !optionalNumberGiven,
                    !info.fields.contains(where: { $0.optional && $0.field.nameText == hostile?.0 })
                else { continue }
                optionalNumberGiven = true
            }
            members.append((name, lawful(field.field.type)))
        }
        if let hostile, !members.contains(where: { $0.0 == hostile.0 }) { members.append(hostile) }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Every number member of every command kind, and `expectedVersion` of each, with each huge
    /// number; some members that hold text get one too. Singly (a 4xx) and in batches (200, every
    /// line refused).
    mutating func hugeNumbers() -> [HostileRequest] {
        var requests: [HostileRequest] = []
        var lines: [String] = []
        for info in CommandKinds.all {
            let members = info.fields.filter { Self.isNumber($0.field.type) }.map { $0.field.nameText } + ["expectedVersion"]
            for member in members {
                for number in Self.hugeNumbers {
                    // 2^63-1 is a lawful expectedVersion (a conflict: 409), never a lawful field value.
                    let line = command(info, stream: "hostile-\(rng.next() % 100)", hostile: (member, number))
                    requests.append(.post(.hugeNumber, "/commands", Array(line.utf8), label: "\(info.typeName).\(member)=\(number.prefix(24))"))
                    lines.append(line)
                }
            }
            for member in ["stream", "type", "id", "correlationId"] {
                let number = Self.hugeNumbers[Int(rng.next() % UInt64(Self.hugeNumbers.count))]
                let line = command(info, stream: "hostile", hostile: (member, number))
                requests.append(.post(.hugeNumber, "/commands", Array(line.utf8), label: "\(info.typeName).\(member)=\(number.prefix(24))"))
            }
        }
        for start in stride(from: 0, to: lines.count, by: 97) {
            let batch = lines[start..<min(start + 97, lines.count)]
            requests.append(
                .post(
                    .hugeNumber, "/commands", Array((batch.joined(separator: "\n") + "\n").utf8), contentType: "application/x-ndjson",
                    label: "batch of \(batch.count) from \(start)", expect: .everyLineRefused(lines: batch.count)))
        }
        return requests
    }

    /// Thousands of `[` and `{`, bare and inside a member, as a command and as an export.
    mutating func deepNesting() -> [HostileRequest] {
        var requests: [HostileRequest] = []
        for depth in [64, 513, 1_000, 4_096, 10_000, 100_000, 500_000] {
            let open = String(repeating: "[", count: depth)
            let objects = String(repeating: "{\"a\":", count: depth / 5)
            let bodies = [
                open, open + String(repeating: "]", count: depth), objects + "1" + String(repeating: "}", count: depth / 5),
                #"{"type":"app.launched","stream":"deep","hasOnboarded":"# + open + String(repeating: "]", count: depth) + "}",
                #"{"type":"cart.addProduct","stream":"deep","meta":"# + objects + "1" + String(repeating: "}", count: depth / 5) + "}",
            ]
            for (index, body) in bodies.enumerated() {
                requests.append(.post(.deepNesting, "/commands", Array(body.utf8), label: "depth \(depth) form \(index)"))
            }
            requests.append(
                .post(
                    .deepNesting, "/sessions", Array((open + "\n").utf8), contentType: "application/x-ndjson",
                    token: HostileRequest.readToken, label: "depth \(depth)"))
            let event =
                #"{"position":1,"stream":"deep","version":1,"eventId":"01a1fe6e-ef04-7e85-b661-7184b7e8597e","type":"app.launched","actor":"system","timestamp":"2026-11-21T14:07:25.444001Z","schemaVersion":1,"data":"#
            requests.append(
                .post(
                    .deepNesting, "/sessions", Array((event + open + "\n").utf8), contentType: "application/x-ndjson",
                    token: HostileRequest.readToken, label: "data at depth \(depth)"))
        }
        return requests
    }

    /// Bytes that are no UTF-8 (a lone continuation byte, an overlong form, a surrogate, 0xFF,
    /// a sequence cut short) in strings and member names, and escapes of lone surrogates.
    mutating func invalidUTF8() -> [HostileRequest] {
        let broken: [[UInt8]] = [
            [0xFF], [0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFE, 0xFE, 0xFF], [0xC3],
        ]
        var requests: [HostileRequest] = []
        for bytes in broken {
            let hex = bytes.map { String($0, radix: 16) }.joined(separator: " ")
            for (member, template) in [
                ("stream", #"{"type":"app.launched","stream":"aXb","hasOnboarded":false}"#),
                ("type", #"{"type":"app.lauXnched","stream":"s","hasOnboarded":false}"#),
                ("name", #"{"type":"cart.addProduct","stream":"s","productId":"p","name":"MuXg","unitPrice":100,"quantity":1}"#),
                ("member name", #"{"type":"app.launched","stream":"s","hasOnbXoarded":false}"#),
                ("reason", #"{"type":"payment.failed","stream":"s","reason":"X"}"#),
            ] {
                let parts = template.split(separator: "X", omittingEmptySubsequences: false)
                let body = Array(parts[0].utf8) + bytes + Array(parts[1].utf8)
                requests.append(.post(.invalidUTF8, "/commands", body, label: "\(hex) in \(member)"))
                requests.append(
                    .post(
                        .invalidUTF8, "/commands", body + [0x0A] + body + [0x0A], contentType: "application/x-ndjson",
                        label: "\(hex) in \(member), batch", expect: .everyLineRefused(lines: 2)))
            }
            let event =
                Array(#"{"position":1,"stream":"u"#.utf8) + bytes
                + Array(
                    #"","version":1,"eventId":"01a1fe6e-ef04-7e85-b661-7184b7e8597e","type":"app.launched","actor":"system","timestamp":"2026-11-21T14:07:25.444001Z","schemaVersion":1,"data":{"hasOnboarded":false}}"#
                        .utf8)
            requests.append(
                .post(
                    .invalidUTF8, "/sessions", event + [0x0A], contentType: "application/x-ndjson",
                    token: HostileRequest.readToken, label: "\(hex) in an export's stream"))
            // In the path and the query: a stream name, a type filter.
            let path = Array("/streams/".utf8) + bytes
            requests.append(
                HostileRequest(
                    kind: .invalidUTF8, label: "GET /streams/\(hex)", bytes: HostileRequest.bytes("GET", path),
                    expectation: .clientErrorOrClosed))
            let escaped = bytes.map { "%" + ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
            requests.append(.get(.invalidUTF8, "/streams/\(escaped)"))
            requests.append(.get(.invalidUTF8, "/events?type=\(escaped)"))
            requests.append(.get(.invalidUTF8, "/events?stream=a\(escaped)"))
            requests.append(.get(.invalidUTF8, "/streams/\(stream)/bisect?invariant=\(escaped)"))
        }
        for escape in [#"\ud800"#, #"\udfff"#, #"\ud800\u0041"#, #"\u0000"#, #"\uZZZZ"#, #"\"#] {
            let body = #"{"type":"app.launched","stream":"a"# + escape + #"","hasOnboarded":false}"#
            requests.append(.post(.invalidUTF8, "/commands", Array(body.utf8), label: "escape \(escape)"))
        }
        return requests
    }
}
