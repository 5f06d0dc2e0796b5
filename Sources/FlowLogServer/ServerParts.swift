#if Network
    import FlowLog
    import FlowLogBasics
    import FlowLogStore
    import Foundation
    import Hummingbird
    import HummingbirdCore
    import Logging
    import NIOCore
    import ServiceLifecycle
    import Tracing

    extension FlowLogHTTPServer {
        /// The server without its signals: the Hummingbird application (routes, middleware, the
        /// guarded HTTP/1 channel) and the log's threads behind it. `run` serves these; the tests
        /// (FlowLogServerTests) ask the same application through HummingbirdTesting's router client,
        /// so what they check is what `flowlog serve` answers, without a process or a socket.
        struct Parts {
            var application: Application<RouterResponder<ServerContext>>
            /// Runs until graceful shutdown, then stops the log's threads.
            let logThreads: LogService

            init(log: any LogStore, options: Options, logger: Logger) throws {
                let handle = LogHandle(log)
                let metrics = ServerMetrics()
                let readers = WorkerPool(name: "flowlog-reader", threads: options.readerThreads)
                let follower = try EventFollower(
                    log: handle, metrics: metrics, maximumSubscribers: options.limits.subscribers,
                    bufferBytes: options.limits.subscriberBufferBytes, heartbeat: options.limits.heartbeat)
                let writer = CommandWriter(log: handle, metrics: metrics) {}
                let sessions = ScratchSessions(capacity: options.limits.sessions, lifetime: options.limits.sessionLifetime, metrics: metrics)
                let view = StoreView(handle)

                let router = Router(context: ServerContext.self)
                // A span per request (OpenTelemetry's HTTP conventions), with the caller's
                // `traceparent` as its parent, outside the access log, which names the span.
                let tracing = InstrumentationSystem.activeTracer != nil
                if tracing { router.add(middleware: TracingMiddleware(redactingQueryParameters: ["access_token"])) }
                router.add(middleware: AccessLogMiddleware(logger: logger, metrics: metrics, tracing: tracing))
                let cors = options.corsOrigins.isEmpty ? nil : CORSPolicy(origins: Set(options.corsOrigins))
                if let cors { router.add(middleware: CORSMiddleware(policy: cors)) }
                let known = KnownRoutes()
                router.add(middleware: ErrorMiddleware(logger: logger, known: known, cors: cors))
                router.add(middleware: HeadLimitMiddleware(limit: options.limits.headBytes))
                let routes = RouteTable(router: router, auth: Authorizer(tokens: options.tokens), known: known)
                CommandRoutes(writer: writer, limits: options.limits, metrics: metrics).register(routes)
                ForgetRoutes(writer: writer, readers: readers, key: options.erasureKey, beforeForgetting: options.beforeForgetting).register(routes)
                let erased = options.erasureKey.map(ErasedStreams.init)
                IngestRoutes(writer: writer, limits: options.limits, erased: erased).register(routes)
                IngestBatchRoutes(writer: writer, limits: options.limits, erased: erased).register(routes)
                StreamRoutes(prefix: "", resolve: { _ in view }, readers: readers, immutableVersions: true).register(routes)
                EventRoutes(
                    handle: handle, readers: readers, follower: follower, limits: options.limits,
                    exports: ExportSlots(capacity: options.limits.exports), logger: logger
                ).register(routes)
                SessionRoutes(sessions: sessions, readers: readers, limits: options.limits).register(routes)
                OperationRoutes(
                    view: view, handle: handle, projectors: options.projectors, deliveries: options.deliveries,
                    spansDropped: options.spansDropped, readers: readers, metrics: metrics
                ).register(routes)

                let deadline = TimeAmount.nanoseconds(options.limits.requestTimeout.nanosecondCount)
                let host = options.host
                let onListening = options.onListening
                application = Application(
                    router: router,
                    server: HTTPServerBuilder { responder in
                        GuardedHTTP1Channel(responder: responder, idleTimeout: .seconds(75), deadline: deadline)
                    },
                    configuration: .init(address: .hostname(host, port: options.port), serverName: "flowlog", backlog: 1024),
                    onServerRunning: { channel in
                        let port = channel.localAddress?.port ?? options.port
                        onListening(ListenAddress(host: host, port: port).url)
                    },
                    logger: logger)
                let retention = RetentionRunner(log: handle, beforeBatch: options.beforeForgetting, logger: logger)
                logThreads = LogService(writer: writer, follower: follower, readers: readers, retention: retention, logger: logger)
            }
        }
    }

    /// Keeps the log's threads for as long as the server runs, and stops them after the HTTP server
    /// (services stop in reverse order): a retention batch under way is committed, queued commands are
    /// committed and answered first.
    struct LogService: Service {
        let writer: CommandWriter
        let follower: EventFollower
        let readers: WorkerPool
        let retention: RetentionRunner
        let logger: Logger

        func run() async throws {
            try? await gracefulShutdown()
            retention.stop()
            writer.stop()
            follower.stop()
            readers.stop()
            logger.info("stopped", metadata: ["reason": "shutdown"])
        }
    }
#endif
