// Needs the `Network` trait: PostgreSQL and the HTTPS transport are built only with it.
#if Network
    import FlowLogBasics
    @testable import FlowLogHTTPClient
    import FlowLogProjections
    import FlowLogTesting
    import Foundation
    import Testing

    @Suite("The trackers' HTTP clients")
    struct HTTPTransportTests {
        @Test func theProxyComesFromTheEnvironmentAndNoProxyHostsAndLoopbackBypassIt() {
            let proxied = ProxyEnvironment([
                "HTTPS_PROXY": "http://user:p%40ss@proxy.internal:3128", "NO_PROXY": "localhost, .corp.example,api.internal:443",
            ])
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
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "collectors/vendor_collector.py"
            ).path
            let (process, port) = try PortPrintingServer.start(["python3", script, "--segment-write-key", "KEY", "--throttle", "2"])
            defer {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            let endpoint = VendorEndpoint.segment(url: URL(string: "http://127.0.0.1:\(port)/v1/batch")!, writeKey: "KEY")
            let body = Array(#"{"batch":[{"type":"track","event":"E","anonymousId":"a","messageId":"m1"}]}"#.utf8)
            let modern = AsyncHTTPTransport(environment: [:])
            defer { modern.shutDown() }
            for transport in [modern, PlainHTTPTransport()] as [any HTTPTransport] {
                let throttled = try transport.post(
                    endpoint.url, headers: [("Content-Type", "application/json")] + endpoint.headers, body: body, timeout: 10)
                #expect(throttled.status == 429)
                #expect(throttled.retryAfter() == 1)
            }
            let accepted = try modern.post(endpoint.url, headers: [("Content-Type", "application/json")] + endpoint.headers, body: body, timeout: 10)
            #expect(accepted.status == 200)
            #expect(try JSONParser.parse(String(decoding: accepted.body, as: UTF8.self))["success"] == .bool(true))
            for transport in [modern, PlainHTTPTransport()] as [any HTTPTransport] {
                #expect(throws: TransportFailure.self) {
                    _ = try transport.post(URL(string: "http://127.0.0.1:1/v1/batch")!, headers: [], body: body, timeout: 10)
                }
            }
        }

        /// TLS is verified against the system's roots: a collector with a self-signed certificate is
        /// refused at once (a `FlowLogError`, which stops the tracker), not retried for an hour.
        @Test func anUntrustedCertificateStopsTheTrackerAtOnce() throws {
            let folder = TemporaryDirectory()
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            openssl.arguments = [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder.child("key.pem"), "-out", folder.child("cert.pem"),
                "-subj", "/CN=127.0.0.1", "-days", "1",
            ]
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
            let (server, port) = try PortPrintingServer.start([
                "python3", "-c",
                """
                import http.server, ssl, sys
                httpd = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1], sys.argv[2])
                httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
                print(httpd.server_address[1], flush=True)
                httpd.serve_forever()
                """, folder.child("cert.pem"), folder.child("key.pem"),
            ])
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            let transport = AsyncHTTPTransport(environment: [:])
            defer { transport.shutDown() }
            let started = Date()
            do {
                _ = try transport.post(URL(string: "https://127.0.0.1:\(port)/v1/batch")!, headers: [], body: Array("{}".utf8), timeout: 10)
                Issue.record("a self-signed certificate was accepted")
            } catch let error as FlowLogError {
                #expect("\(error)".contains("TLS"), "\(error)")
            }
            #expect(Date().timeIntervalSince(started) < 9)
        }
    }
#endif
