#if Network
import FlowLog
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// `flowlog serve`: the HTTP API of docs/openapi.json, live subscriptions and the inspector, over
/// any `LogStore` the composition root opens.
///
/// Threads: the event loops only move bytes. One writer thread owns the `CommandProcessor` and
/// commits every command that arrived meanwhile in one durable append (group commit); a few
/// reader threads run the reads; one follower thread follows the log and fans new events out to
/// subscribers; each export runs on a thread of its own. SIGINT and SIGTERM shut down gracefully:
/// no new connections, subscriptions end, commands in flight are committed and answered, then the
/// threads stop and the log is left closed.
public enum FlowLogHTTPServer {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var tokens: TokenFile?
        public var corsOrigins: [String]
        public var limits: ServerLimits
        public var readerThreads: Int
        /// Called once the server listens, with its address (`http://127.0.0.1:8080`).
        public var onListening: @Sendable (String) -> Void

        public init(host: String, port: Int, tokens: TokenFile?, corsOrigins: [String] = [], limits: ServerLimits = ServerLimits(),
                    readerThreads: Int = 3, onListening: @escaping @Sendable (String) -> Void) {
            self.host = host
            self.port = port
            self.tokens = tokens
            self.corsOrigins = corsOrigins
            self.limits = limits
            self.readerThreads = readerThreads
            self.onListening = onListening
        }
    }

    /// Serves `log` until SIGINT or SIGTERM.
    public static func run(log: any LogStore, options: Options) async throws {
        var logger = Logger(label: "flowlog.serve") { JSONLineLogHandler(label: $0) }
        logger.logLevel = .info
        let handle = LogHandle(log)
        let metrics = ServerMetrics()
        let readers = WorkerPool(name: "flowlog-reader", threads: options.readerThreads)
        let follower = try EventFollower(log: handle, metrics: metrics, maximumSubscribers: options.limits.subscribers,
                                         bufferBytes: options.limits.subscriberBufferBytes, heartbeat: options.limits.heartbeat)
        let writer = CommandWriter(log: handle, metrics: metrics) {}
        let sessions = ScratchSessions(capacity: options.limits.sessions, lifetime: options.limits.sessionLifetime, metrics: metrics)
        let view = StoreView(handle)

        let router = Router(context: ServerContext.self)
        router.add(middleware: AccessLogMiddleware(logger: logger, metrics: metrics))
        let cors = options.corsOrigins.isEmpty ? nil : CORSPolicy(origins: Set(options.corsOrigins))
        if let cors { router.add(middleware: CORSMiddleware(policy: cors)) }
        let known = KnownRoutes()
        router.add(middleware: ErrorMiddleware(logger: logger, known: known, cors: cors))
        let routes = RouteTable(router: router, auth: Authorizer(tokens: options.tokens), known: known)
        CommandRoutes(writer: writer, limits: options.limits, metrics: metrics).register(routes)
        StreamRoutes(prefix: "", resolve: { _ in view }, readers: readers, immutableVersions: true).register(routes)
        EventRoutes(handle: handle, readers: readers, follower: follower, limits: options.limits,
                    exports: ExportSlots(capacity: options.limits.exports), logger: logger).register(routes)
        SessionRoutes(sessions: sessions, readers: readers, limits: options.limits).register(routes)
        OperationRoutes(view: view, readers: readers, metrics: metrics).register(routes)

        let timeout = options.limits.requestTimeout.components
        let deadline = TimeAmount.nanoseconds(timeout.seconds * 1_000_000_000 + timeout.attoseconds / 1_000_000_000)
        let host = options.host
        let onListening = options.onListening
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(responder: responder, idleTimeout: .seconds(75), deadline: deadline)
            },
            configuration: .init(address: .hostname(host, port: options.port), serverName: "flowlog", backlog: 1024),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let shown = host.contains(":") ? "[\(host)]" : host
                onListening("http://\(shown):\(port)")
            },
            logger: logger)

        let core = LogService(writer: writer, follower: follower, readers: readers, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: core), .init(service: app, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}

/// Keeps the log's threads for as long as the server runs, and stops them after the HTTP server
/// (services stop in reverse order): queued commands are committed and answered first.
struct LogService: Service {
    let writer: CommandWriter
    let follower: EventFollower
    let readers: WorkerPool
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        writer.stop()
        follower.stop()
        readers.stop()
        logger.info("stopped", metadata: ["reason": "shutdown"])
    }
}
#endif
