import Foundation
import HTTPTypes
// The types of the client's API (HTTPBody, OpenAPIValueContainer, …) are the runtime's: one import suffices.
@_exported import OpenAPIRuntime

#if canImport(OpenAPIURLSession)
    import OpenAPIURLSession
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif
#endif

// The typed client of `flowlog serve`'s HTTP API: `Client` (one method per operation of
// docs/openapi.json, named by its operationId) and its types under `Components` and `Operations`
// are in Generated/, swift-openapi-generator's output (`scripts/generate-client`, docs/client.md).
// This file adds what the document does not say: the bearer token, and an initialiser per transport
// (FlowLogDateTranscoder.swift: the times' format).
//
//     let client = Client(serverURL: URL(string: "http://127.0.0.1:8080")!, token: "…")
//     switch try await client.getState(path: .init(stream: "cart-1")) {
//     case .ok(let ok): print(try ok.body.json.cart.items.count)
//     case .notFound: print("no such stream")
//     default: break
//     }

/// Sends `Authorization: Bearer TOKEN` with every request (the document's `bearerAuth`; a server
/// started with `--token-file` asks for it, one started without needs none).
public struct BearerTokenMiddleware: ClientMiddleware {
    public let token: String

    public init(token: String) { self.token = token }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

extension Client {
    /// A client of the server at `serverURL` (for example `http://127.0.0.1:8080`) over `transport`,
    /// sending `token` if there is one, reading and writing times as FlowLog does (`.flowLog`).
    public init(serverURL: URL, token: String?, transport: any ClientTransport) {
        self.init(
            serverURL: serverURL, configuration: Configuration(dateTranscoder: .flowLog), transport: transport,
            middlewares: token.map { [BearerTokenMiddleware(token: $0)] } ?? [])
    }

    #if canImport(OpenAPIURLSession)
        /// A client over URLSession (`URLSessionTransport`), what apps on Apple platforms use: no NIO.
        public init(serverURL: URL, token: String? = nil, session: URLSession = .shared) {
            self.init(serverURL: serverURL, token: token, transport: URLSessionTransport(configuration: .init(session: session)))
        }
    #endif
}
