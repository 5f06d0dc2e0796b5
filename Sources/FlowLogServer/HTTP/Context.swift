#if Network
    import Hummingbird
    import Logging
    import Synchronization

    struct ServerContext: RequestContext {
        var coreContext: CoreRequestContextStorage

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
        }
    }

    typealias Handler = @Sendable (Request, ServerContext) async throws -> Response

    /// The token scopes of docs/openapi.json. Each is granted on its own: `admin` (forgetting a
    /// stream) implies neither `read` nor `write`, and neither of them implies it, so a token that
    /// feeds the log or reads it can never erase from it. `ingest` (a device's recorded events,
    /// `POST /streams/{stream}/events`) implies no other and none implies it: the token an app ships
    /// with can deliver its sessions and do nothing else, and a token that issues commands cannot
    /// write events the server did not decide.
    enum Scope: String, Sendable, CaseIterable {
        case read, write, admin, ingest
    }

    /// The API's paths and their methods, for a 405 with `Allow` (and CORS preflights) on a known
    /// path asked with another method: the router itself only knows "not found".
    /// Filled while the routes are registered, read by every request after.
    final class KnownRoutes: Sendable {
        private let routes = Mutex<[(components: [Substring], methods: [HTTPRequest.Method])]>([])

        func add(_ path: String, _ method: HTTPRequest.Method) {
            let components = path.split(separator: "/")
            routes.withLock { routes in
                if let index = routes.firstIndex(where: { $0.components == components }) {
                    routes[index].methods.append(method)
                } else {
                    routes.append((components, [method]))
                }
            }
        }

        /// The methods of the route `path` matches, if one does.
        func methods(for path: String) -> [HTTPRequest.Method]? {
            let parts = path.split(separator: "/")
            return routes.withLock { routes in
                routes.first { route in
                    route.components.count == parts.count
                        && zip(route.components, parts).allSatisfy { template, part in template.hasPrefix("{") || template == part }
                }?.methods
            }
        }
    }

    /// Registers the API's routes, each with the scope it needs (checked before the handler runs).
    final class RouteTable {
        private let router: Router<ServerContext>
        private let auth: Authorizer
        let known: KnownRoutes

        init(router: Router<ServerContext>, auth: Authorizer, known: KnownRoutes) {
            self.router = router
            self.auth = auth
            self.known = known
        }

        /// `scope` nil: no token needed. `queryToken`: the token may come as `access_token=`.
        func add(_ method: HTTPRequest.Method, _ path: String, scope: Scope?, queryToken: Bool = false, _ handler: @escaping Handler) {
            known.add(path, method)
            let auth = self.auth
            router.on(RouterPath(path), method: method) { request, context in
                if let scope { try auth.authorize(request, scope: scope, queryToken: queryToken) }
                return try await handler(request, context)
            }
        }
    }
#endif
