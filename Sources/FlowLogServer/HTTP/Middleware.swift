#if Network
    import FlowLog
    import Hummingbird
    import Logging
    import Tracing

    /// One structured access-log line per request (swift-log, on stderr) and the request metrics.
    /// The route is the template (`/streams/{stream}`), and the path never carries its query string:
    /// `access_token=` must not reach a log.
    struct AccessLogMiddleware: RouterMiddleware {
        typealias Context = ServerContext
        let logger: Logger
        let metrics: ServerMetrics
        /// Whether requests have spans: then each line names its request's trace and span.
        var tracing = false

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            let started = ContinuousClock.now
            var status = 500
            let span = tracing ? ServiceContext.current?.traceIdentifiers : nil
            defer {
                let elapsed = ContinuousClock.now - started
                let route = context.endpointPath ?? "NotFound"
                metrics.recordRequest(method: request.method.rawValue, route: route, status: status, duration: elapsed)
                var metadata: Logger.Metadata = [
                    "method": .string(request.method.rawValue),
                    "path": .string(String(request.uri.path.prefix(256))),
                    "route": .string(route),
                    "status": .stringConvertible(status),
                    "ms": .string(JSONLineLogHandler.milliseconds(elapsed)),
                ]
                if let span {
                    metadata["trace_id"] = .string(span.traceID)
                    metadata["span_id"] = .string(span.spanID)
                }
                logger.info("request", metadata: metadata)
            }
            let response = try await next(request, context)
            status = response.status.code
            return response
        }
    }

    /// Every error becomes `{"error":{"code","message"}}`: the API's own errors as they are,
    /// Hummingbird's (an unknown route) with their code, anything else a 500 with no detail.
    struct ErrorMiddleware: RouterMiddleware {
        typealias Context = ServerContext
        let logger: Logger
        let known: KnownRoutes
        let cors: CORSPolicy?

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            do {
                return try await next(request, context)
            } catch let error as APIError {
                return try error.response(from: request, context: context)
            } catch let error as HTTPError where error.status == .notFound && known.methods(for: request.uri.path) != nil {
                let allowed = known.methods(for: request.uri.path)!
                if request.method == .options, let cors, let preflight = cors.preflight(request, allowed: allowed) { return preflight }
                let names = allowed.map(\.rawValue)
                return try APIError(
                    status: .methodNotAllowed, code: "methodNotAllowed",
                    message: "\(request.method.rawValue) is not a method of this route; use \(names.joined(separator: " or ")).",
                    headers: [.allow: names.joined(separator: ", ")]
                ).response(from: request, context: context)
            } catch let error as HTTPError {
                let apiError: APIError =
                    switch error.status {
                    case .notFound:
                        .notFound(
                            "notFound",
                            "There is no \(request.uri.path.prefix(200)) here; the API is described at /openapi.json and the inspector is at /inspector/."
                        )
                    case .contentTooLarge: .payloadTooLarge("The body is over this route's limit; nothing was applied.")
                    case .methodNotAllowed: APIError(status: .methodNotAllowed, code: "methodNotAllowed", message: "That method is not allowed here.")
                    case .badRequest: .invalidParameter(error.body ?? "The request is malformed.")
                    default:
                        APIError(
                            status: error.status, code: error.status.code >= 500 ? "internalError" : "invalidRequest",
                            message: error.body ?? error.status.reasonPhrase)
                    }
                return try apiError.response(from: request, context: context)
            } catch {
                logger.error("unexpected failure", metadata: ["path": .string(request.uri.path), "error": .string("\(error)")])
                return try APIError.from(error).response(from: request, context: context)
            }
        }
    }

    /// `--cors-origin`: only those origins get CORS headers; without the option, none does.
    struct CORSPolicy: Sendable {
        let origins: Set<String>

        func allowedOrigin(_ request: Request) -> String? {
            guard let origin = request.headers[.origin], origins.contains(origin) || origins.contains("*") else { return nil }
            return origin
        }

        func preflight(_ request: Request, allowed: [HTTPRequest.Method]) -> Response? {
            guard let origin = allowedOrigin(request), request.headers[.accessControlRequestMethod] != nil else { return nil }
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin,
                    .accessControlAllowMethods: allowed.map(\.rawValue).joined(separator: ", "),
                    .accessControlAllowHeaders: "Authorization, Content-Type, Last-Event-ID",
                    .accessControlMaxAge: "600",
                    .vary: "Origin",
                ])
        }
    }

    struct CORSMiddleware: RouterMiddleware {
        typealias Context = ServerContext
        let policy: CORSPolicy

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var response = try await next(request, context)
            if let origin = policy.allowedOrigin(request), response.headers[.accessControlAllowOrigin] == nil {
                response.headers[.accessControlAllowOrigin] = origin
                response.headers[.vary] = "Origin"
            }
            return response
        }
    }
#endif
