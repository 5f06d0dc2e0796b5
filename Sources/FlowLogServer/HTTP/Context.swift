import Hummingbird
import Logging

struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}

typealias Handler = @Sendable (Request, ServerContext) async throws -> Response

/// The token scopes of docs/openapi.json.
enum Scope: String, Sendable {
    case read, write
}

/// Registers the API's routes: each with the scope it needs (checked before the handler runs),
/// and a 405 with `Allow` for the other methods of a known path.
final class RouteTable {
    private let router: Router<ServerContext>
    private let auth: Authorizer
    private var methods: [String: [HTTPRequest.Method]] = [:]
    private var order: [String] = []

    init(router: Router<ServerContext>, auth: Authorizer) {
        self.router = router
        self.auth = auth
    }

    /// `scope` nil: no token needed. `queryToken`: the token may come as `access_token=`.
    func add(_ method: HTTPRequest.Method, _ path: String, scope: Scope?, queryToken: Bool = false, _ handler: @escaping Handler) {
        if methods[path] == nil { order.append(path) }
        methods[path, default: []].append(method)
        let auth = self.auth
        router.on(RouterPath(path), method: method) { request, context in
            if let scope { try auth.authorize(request, scope: scope, queryToken: queryToken) }
            return try await handler(request, context)
        }
    }

    /// Answers every other common method of each path with 405 (CORS preflights aside).
    func finish(cors: CORSPolicy?) {
        let all: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options, .trace]
        for path in order {
            let allowed = methods[path]!
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            for method in all where !allowed.contains(method) {
                router.on(RouterPath(path), method: method) { request, _ in
                    if method == .options, let cors, let preflight = cors.preflight(request, allowed: allowed) { return preflight }
                    throw APIError(status: .methodNotAllowed, code: "methodNotAllowed",
                                   message: "\(request.method.rawValue) is not a method of \(path); use \(allowed.map(\.rawValue).joined(separator: " or ")).",
                                   headers: [.allow: allow])
                }
            }
        }
    }
}
