import FlowLogProjections

#if Network
    import FlowLogHTTPClient
#endif

/// Which HTTP client the trackers send through: AsyncHTTPClient (TLS, pooled connections,
/// HTTPS_PROXY/NO_PROXY) in the full build; in the embedded build (`--disable-default-traits`, no
/// NIO), the plain loopback-only client, so a tracker there reaches a collector or a forwarding
/// proxy on this machine, and an https:// endpoint is refused up front naming the full build.
enum HTTPTransports {
    #if Network
        static let supportsHTTPS = true
        /// One client for the process: its connections are reused across requests and trackers.
        nonisolated(unsafe) private static var client: AsyncHTTPTransport?

        static func make() -> any HTTPTransport {
            if let client { return client }
            let made = AsyncHTTPTransport()
            client = made
            return made
        }

        /// Closes the pooled connections before the process ends.
        static func shutDown() {
            client?.shutDown()
            client = nil
        }
    #else
        static let supportsHTTPS = false
        static func make() -> any HTTPTransport { PlainHTTPTransport() }
        static func shutDown() {}
    #endif
}
