@testable import FlowLogHTTPClient
import FlowLog
import Foundation
import Testing

@Suite("The trackers' HTTP clients")
struct HTTPTransportTests {
    @Test func theProxyComesFromTheEnvironmentAndNoProxyHostsAndLoopbackBypassIt() {
        let proxied = ProxyEnvironment(["HTTPS_PROXY": "http://user:p%40ss@proxy.internal:3128", "NO_PROXY": "localhost, .corp.example,api.internal:443"])
        #expect(proxied.proxy != nil)
        #expect(!proxied.bypasses(host: "api.segment.io"))
        #expect(proxied.bypasses(host: "collector.corp.example") && proxied.bypasses(host: "corp.example"))
        #expect(proxied.bypasses(host: "api.internal"))
        #expect(proxied.bypasses(host: "127.0.0.1") && proxied.bypasses(host: "[::1]"))
        #expect(!proxied.bypasses(host: "notcorp.example"))
        #expect(ProxyEnvironment(["https_proxy": "proxy:8080", "no_proxy": "*"]).bypasses(host: "api.segment.io"))
        #expect(ProxyEnvironment([:]).proxy == nil)
        #expect(ProxyEnvironment(["HTTPS_PROXY": ""]).proxy == nil)
    }

    /// Both clients answer the same for the same collector: the status, the headers (Retry-After)
    /// and the body; and a refused connection is a `TransportFailure`, to be retried.
    @Test func bothClientsReadStatusHeadersAndBodyAndReportANetworkFailureAsRetryable() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("collectors/vendor_collector.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--segment-write-key", "KEY", "--throttle", "2"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        let port = try #require(Int(String(decoding: line, as: UTF8.self)))
        let endpoint = VendorEndpoint.segment(url: URL(string: "http://127.0.0.1:\(port)/v1/batch")!, writeKey: "KEY")
        let body = Array(#"{"batch":[{"type":"track","event":"E","anonymousId":"a","messageId":"m1"}]}"#.utf8)
        let modern = AsyncHTTPTransport(environment: [:])
        defer { modern.shutDown() }
        for transport in [modern, PlainHTTPTransport()] as [any HTTPTransport] {
            let throttled = try transport.post(endpoint.url, headers: [("Content-Type", "application/json")] + endpoint.headers, body: body, timeout: 10)
            #expect(throttled.status == 429)
            #expect(throttled.retryAfter() == 1)
        }
        let accepted = try modern.post(endpoint.url, headers: [("Content-Type", "application/json")] + endpoint.headers, body: body, timeout: 10)
        #expect(accepted.status == 200)
        #expect(try JSONParser.parse(String(decoding: accepted.body, as: UTF8.self))["success"] == .bool(true))
        for transport in [modern, PlainHTTPTransport()] as [any HTTPTransport] {
            #expect(throws: TransportFailure.self) { _ = try transport.post(URL(string: "http://127.0.0.1:1/v1/batch")!, headers: [], body: body, timeout: 10) }
        }
    }
}
