import FlowDomain
import FlowLogTesting
import Foundation

/// The hostile reads: numbers in query strings, `Last-Event-ID` and paths, and path segments that
/// are no stream id, on the server's routes and on a scratch session's.
extension HostileCatalogue {
    /// Values no integer parameter takes: signs, exponents, fractions, hex, blanks, digits of
    /// other scripts, a NUL, and numbers past 64 bits below zero.
    static let refusedNumbers = [
        "-1", "-99999999999999999999", "-9223372036854775808", "1e999", "1e3", "1.5", "0x10", "", "%20" + "1", "1%20", "NaN",
        "inf", "%EF%BC%91", "9223372036854775807abc", "%00", "1%00", "--1", "9" + String(repeating: "9", count: 2000) + "x",
    ]
    /// Positive numbers at and past 64 bits: lawful where a page may start past the end.
    static let hugePositive = ["9223372036854775807", "9223372036854775808", "99999999999999999999", String(repeating: "9", count: 2000)]

    /// One integer query parameter of a route; `hugeIsLawful` when a number past the log is a
    /// lawful request (an empty page or export), else it must be refused.
    struct NumberParameter {
        let path: String
        let name: String
        let hugeIsLawful: Bool
    }

    func numberParameters(prefix: String, stream: String) -> [NumberParameter] {
        [
            NumberParameter(path: "\(prefix)/streams", name: "limit", hugeIsLawful: false),
            NumberParameter(path: "\(prefix)/streams/\(stream)", name: "at", hugeIsLawful: false),
            NumberParameter(path: "\(prefix)/streams/\(stream)/events", name: "fromVersion", hugeIsLawful: true),
            NumberParameter(path: "\(prefix)/streams/\(stream)/events", name: "limit", hugeIsLawful: false),
        ]
    }

    /// Every integer parameter of the server's routes and of a session's (`session`, holding
    /// `sessionStream`) with each refused value and each huge one.
    mutating func queryNumbers(session: String, sessionStream: String) -> [HostileRequest] {
        var parameters = numberParameters(prefix: "", stream: stream) + numberParameters(prefix: "/sessions/\(session)", stream: sessionStream)
        parameters += [
            NumberParameter(path: "/events", name: "fromPosition", hugeIsLawful: true),
            NumberParameter(path: "/events", name: "toPosition", hugeIsLawful: true),
            // Every value refused: a lawful one would open a stream that never ends.
            NumberParameter(path: "/events/subscribe", name: "from", hugeIsLawful: false),
        ]
        var requests: [HostileRequest] = []
        for parameter in parameters {
            for value in Self.refusedNumbers {
                requests.append(.get(.queryNumber, "\(parameter.path)?\(parameter.name)=\(value)"))
            }
            for value in Self.hugePositive where !(parameter.path == "/events/subscribe") {
                requests.append(
                    .get(
                        .queryNumber, "\(parameter.path)?\(parameter.name)=\(value)", expect: parameter.hugeIsLawful ? .notServerError : .clientError)
                )
            }
        }
        // A parameter twice, and one that is lawful beside one that is not.
        requests.append(.get(.queryNumber, "/streams?limit=5&limit=-5", expect: .notServerError))
        requests.append(.get(.queryNumber, "/streams/\(stream)/events?fromVersion=1&limit=99999999999999999999"))
        // Last-Event-ID: every value here must be refused (a lawful one would subscribe).
        for value in Self.refusedNumbers.filter({ !$0.contains("%") }) + ["9223372036854775807", "99999999999999999999", " ", "1 2", "+-1"] {
            requests.append(.get(.queryNumber, "/events/subscribe", headers: [("Last-Event-ID", value)]))
            requests.append(.get(.queryNumber, "/events/subscribe?from=1", headers: [("Last-Event-ID", value)]))
        }
        return requests
    }

    /// Versions in paths, and stream segments that are no stream id.
    mutating func pathSegments(session: String, sessionStream: String) -> [HostileRequest] {
        var requests: [HostileRequest] = []
        for (prefix, stream) in [("", stream), ("/sessions/\(session)", sessionStream)] {
            for value in Self.refusedNumbers where !value.isEmpty {
                requests.append(.get(.pathSegment, "\(prefix)/streams/\(stream)/versions/\(value)"))
            }
            for value in Self.hugePositive {
                requests.append(.get(.pathSegment, "\(prefix)/streams/\(stream)/versions/\(value)"))
            }
            for segment in [
                String(repeating: "s", count: 65), String(repeating: "s", count: 100_000), "a%20b", "%2E%2E", "a%2Fb", "a%00", "%", "%G1",
                "..", "a;b", "%FF%FF",
            ] {
                requests.append(.get(.pathSegment, "\(prefix)/streams/\(segment)"))
                requests.append(.get(.pathSegment, "\(prefix)/streams/\(segment)/events?fromVersion=99999999999999999999"))
                requests.append(.get(.pathSegment, "\(prefix)/streams/\(segment)/versions/99999999999999999999"))
                requests.append(.get(.pathSegment, "\(prefix)/streams/\(segment)/bisect?invariant=all"))
            }
        }
        for id in ["x", String(repeating: "A", count: 22), "%FF", String(repeating: "s", count: 10_000), "..%2F..", "99999999999999999999"] {
            requests.append(.get(.pathSegment, "/sessions/\(id)/streams"))
            requests.append(.get(.pathSegment, "/sessions/\(id)/streams/\(stream)?at=99999999999999999999"))
            requests.append(
                HostileRequest(
                    kind: .pathSegment, label: "DELETE /sessions/\(id.prefix(40))",
                    bytes: HostileRequest.bytes("DELETE", Array("/sessions/\(id)".utf8))))
        }
        // The wrong scope, the wrong method, no token.
        requests.append(.post(.pathSegment, "/commands", Array(Self.command.utf8), token: HostileRequest.readToken, label: "with a read token"))
        requests.append(.get(.pathSegment, "/streams", token: HostileRequest.writeToken))
        requests.append(.get(.pathSegment, "/streams", token: nil))
        requests.append(.get(.pathSegment, "/streams", token: "\u{7F}\u{1}", expect: .clientErrorOrClosed))
        requests.append(
            HostileRequest(
                kind: .pathSegment, label: "DELETE a stream with a write token",
                bytes: HostileRequest.bytes("DELETE", Array("/streams/\(stream)?reason=99999999999999999999".utf8), token: HostileRequest.writeToken))
        )
        requests.append(
            HostileRequest(
                kind: .pathSegment, label: "PUT /commands",
                bytes: HostileRequest.bytes("PUT", Array("/commands".utf8), token: HostileRequest.writeToken, body: Array(Self.command.utf8))))
        return requests
    }
}
