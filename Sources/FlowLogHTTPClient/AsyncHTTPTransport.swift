import AsyncHTTPClient
import NIOCore
import FlowLog
import Foundation

/// The trackers' HTTP client in the full build: AsyncHTTPClient with TLS (system roots, full
/// verification), pooled keep-alive connections reused across requests and trackers, connect and
/// read timeouts, and the proxy the environment names (`HTTPS_PROXY`/`HTTP_PROXY`, bypassed for
/// `NO_PROXY` hosts and loopback). FlowLog's projectors are synchronous, so each request is awaited
/// from the calling thread, which is never one of the client's event loops.
public final class AsyncHTTPTransport: HTTPTransport, @unchecked Sendable {
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
        return configuration
    }

    public func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
        let client = (proxied != nil && !proxyEnvironment.bypasses(host: url.host ?? "")) ? proxied! : direct
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "User-Agent", value: "flowlog")
        request.body = .bytes(ByteBuffer(bytes: body))
        let deadline = TimeAmount.milliseconds(Int64(timeout * 1_000))
        let prepared = request
        let result = Blocking.await {
            let response = try await client.execute(prepared, timeout: deadline)
            let bytes = try await response.body.collect(upTo: 1 << 20)
            return HTTPReply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: Array(bytes.readableBytesView))
        }
        switch result {
        case .success(let reply): return reply
        case .failure(let error):
            let kind = String(reflecting: type(of: error))
            if kind.contains("NIOSSL") || kind.contains("Certificate") {
                // A certificate or handshake refusal does not mend itself by waiting: stop now.
                throw FlowLogError.input("TLS with \(url.host ?? "the collector") failed (\(error)); check the URL and the machine's CA certificates")
            }
            throw TransportFailure("\(error)")
        }
    }

    /// Closes the pooled connections.
    public func shutDown() {
        _ = Blocking.await { try await self.direct.shutdown() }
        if let proxied { _ = Blocking.await { try await proxied.shutdown() } }
    }
}

/// Runs async work to completion from a synchronous caller (never from async code or an event loop).
enum Blocking {
    private final class Box<T>: @unchecked Sendable { var result: Result<T, any Error>? }

    static func await<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let semaphore = DispatchSemaphore(value: 0)
        let box = Box<T>()
        Task.detached {
            do { box.result = .success(try await operation()) } catch { box.result = .failure(error) }
            semaphore.signal()
        }
        semaphore.wait()
        return box.result!
    }
}
