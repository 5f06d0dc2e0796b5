#if Network
    import AsyncHTTPClient
    import FlowLogBasics
    public import FlowLogProjections
    public import FlowLogSync
    public import Foundation
    import NIOCore
    import NIOHTTP1

    /// The trackers' HTTP client in the full build: AsyncHTTPClient with TLS (system roots, full
    /// verification), pooled keep-alive connections reused across requests and trackers, connect and
    /// read timeouts, and the proxy the environment names (`HTTPS_PROXY`/`HTTP_PROXY`, bypassed for
    /// `NO_PROXY` hosts and loopback). FlowLog's projectors are synchronous, so each request is awaited
    /// from the calling thread, which is never one of the client's event loops.
    public final class AsyncHTTPTransport: HTTPTransport, SyncTransport, Sendable {
        private let direct: HTTPClient
        private let proxied: HTTPClient?
        private let proxyEnvironment: ProxyEnvironment

        public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            proxyEnvironment = ProxyEnvironment(environment)
            direct = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration(proxy: nil))
            proxied = proxyEnvironment.proxy.map { HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration(proxy: $0)) }
        }

        static func configuration(proxy: HTTPClient.Configuration.Proxy?) -> HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(5), read: .seconds(60)),
                connectionPool: .init(idleTimeout: .seconds(60)),
                proxy: proxy)
            configuration.tlsConfiguration?.minimumTLSVersion = .tlsv12
            // The callers make the request's client span themselves (`HTTPClientSpan`: one per request,
            // its retries as events, under the projector's batch); AsyncHTTPClient's own would be a
            // second one per attempt, with no parent, since the answer is awaited off its task.
            configuration.tracing.tracer = nil
            return configuration
        }

        /// Sent through AsyncHTTPClient's EventLoopFuture API and waited for on the calling thread: the
        /// answer arrives on the client's own event loop, so this needs no thread of Swift's cooperative
        /// pool (blocking one of those to await a Task deadlocks when the pool is small, as under tests).
        public func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
            try exchange(method: "POST", url: url, headers: headers, body: body, timeout: timeout)
        }

        /// Any request (`push` and `pull` also GET), sent and waited for as `post` is.
        public func exchange(method: String, url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
            let client = (proxied != nil && !proxyEnvironment.bypasses(host: url.host ?? "")) ? proxied! : direct
            var fields = HTTPHeaders(headers)
            fields.add(name: "User-Agent", value: "flowlog")
            let response: HTTPClient.Response
            do {
                let request = try HTTPClient.Request(
                    url: url.absoluteString, method: HTTPMethod(rawValue: method), headers: fields,
                    body: body.isEmpty && method == "GET" ? nil : .bytes(body))
                response = try client.execute(request: request, deadline: .now() + .milliseconds(Int64(timeout * 1_000))).wait()
            } catch {
                let kind = String(reflecting: type(of: error))
                if kind.contains("NIOSSL") || kind.contains("Certificate") || "\(error)".contains("handshake") {
                    // A certificate or handshake refusal does not mend itself by waiting: stop now.
                    throw FlowLogError.input(
                        "TLS with \(url.host ?? "the collector") failed (\(error)); check the URL and the machine's CA certificates")
                }
                throw TransportFailure("\(error)")
            }
            return HTTPReply(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                body: response.body.map { Array($0.readableBytesView) } ?? [])
        }

        /// Closes the pooled connections.
        public func shutDown() {
            try? direct.syncShutdown()
            try? proxied?.syncShutdown()
        }
    }
#endif
