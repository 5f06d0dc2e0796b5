#if Network
    import Hummingbird

    /// Refuses a request whose head (target and header fields) is over `ServerLimits.headBytes`: 431
    /// with the API's error JSON, before any route or token check runs. The HTTP parser below takes
    /// heads up to about 80 KiB and closes the connection past that; this answers the ones in between,
    /// so a client that sends a 64 KiB header or thousands of headers learns why, and no route holds
    /// such a head.
    struct HeadLimitMiddleware: RouterMiddleware {
        typealias Context = ServerContext
        let limit: Int

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var size = request.uri.description.utf8.count
            for field in request.headers { size += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
            guard size <= limit else {
                throw APIError(
                    status: .requestHeaderFieldsTooLarge, code: "headersTooLarge",
                    message:
                        "The request's head is \(size) bytes, over the \(limit / 1024) KiB this server reads; send fewer or shorter headers and a shorter URL.",
                    headers: [.connection: "close"])
            }
            return try await next(request, context)
        }
    }
#endif
