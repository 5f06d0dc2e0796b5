import FlowLogBasics
import FlowLogTesting
import Foundation

/// Tests/collectors/otlp_receiver.py on a loopback port: a real OTLP/HTTP trace receiver (the
/// OpenTelemetry project's protobuf definitions decode each request), which can refuse or hang.
/// Stopped when the test ends.
final class OTLPReceiver {
    let process: Process
    let port: Int

    init(mode: String = "ok") throws {
        let script = FlowLogProcess.fixtures.deletingLastPathComponent().appendingPathComponent("Tests/collectors/otlp_receiver.py").path
        (process, port) = try PortPrintingServer.start(["python3", script, "--mode", mode])
    }

    /// The environment that points `flowlog` at this receiver, exporting soon after a span ends.
    func environment(_ more: [String: String] = [:]) -> [String: String] {
        ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)", "OTEL_BSP_SCHEDULE_DELAY": "100"].merging(more) { $1 }
    }

    /// A span as the receiver decoded it.
    struct Span {
        let json: JSONValue
        var name: String { string("name") }
        var traceID: String { string("trace_id") }
        var spanID: String { string("span_id") }
        var parentSpanID: String { string("parent_span_id") }
        var kind: String { string("kind") }
        var statusCode: Int { if case .integer(let code)? = json["status"]?["code"] { code } else { -1 } }
        var links: [(traceID: String, spanID: String)] {
            guard case .array(let links)? = json["links"] else { return [] }
            return links.map { link in
                guard case .string(let trace)? = link["trace_id"], case .string(let span)? = link["span_id"] else { return ("", "") }
                return (trace, span)
            }
        }
        var eventNames: [String] {
            guard case .array(let events)? = json["events"] else { return [] }
            return events.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }
        }
        func attribute(_ name: String) -> JSONValue? { json["attributes"]?[name] }
        func resource(_ name: String) -> JSONValue? { json["resource"]?[name] }
        private func string(_ key: String) -> String { if case .string(let value)? = json[key] { value } else { "" } }
    }

    func spans() throws -> [Span] {
        guard case .array(let spans) = try call("GET", "/_spans") else { return [] }
        return spans.map(Span.init)
    }

    /// The spans once `count` of them arrived, or what arrived within `seconds`.
    func spans(atLeast count: Int, within seconds: Double = 10) throws -> [Span] {
        let deadline = Date().addingTimeInterval(seconds)
        var spans = try spans()
        while spans.count < count, Date() < deadline {
            usleep(50_000)
            spans = try self.spans()
        }
        return spans
    }

    func stats() throws -> JSONValue { try call("GET", "/_stats") }

    func requests() throws -> Int { if case .integer(let n)? = try stats()["requests"] { n } else { -1 } }

    func control(_ json: String) throws { _ = try call("POST", "/_control", json: json) }

    private func call(_ method: String, _ path: String, json: String? = nil) throws -> JSONValue {
        let result = try RawHTTP.request(
            port: UInt16(port), method: method, path: path, headers: json == nil ? [:] : ["Content-Type": "application/json"],
            body: Array((json ?? "").utf8))
        return result.json
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
