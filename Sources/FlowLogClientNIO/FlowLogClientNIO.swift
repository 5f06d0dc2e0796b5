#if Network
    public import AsyncHTTPClient
    @_exported import FlowLogClient
    public import Foundation
    public import NIOCore
    import OpenAPIAsyncHTTPClient

    extension Client {
        /// A client over AsyncHTTPClient (`AsyncHTTPClientTransport`), for a service or tool whose binary
        /// already links NIO (on Linux, URLSession needs libcurl through FoundationNetworking, which
        /// FlowLog's static executable does not carry). `httpClient` is named rather than defaulted (pass
        /// `.shared` for AsyncHTTPClient's own), so that this never competes with FlowLogClient's
        /// URLSession initialiser on Apple platforms.
        public init(serverURL: URL, token: String? = nil, httpClient: HTTPClient, timeout: TimeAmount = .minutes(1)) {
            self.init(
                serverURL: serverURL, token: token,
                transport: AsyncHTTPClientTransport(configuration: .init(client: httpClient, timeout: timeout)))
        }
    }
#endif
