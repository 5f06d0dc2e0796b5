#if Network
    import FlowLogBasics
    public import FlowLogStore
    import Hummingbird
    import Logging
    import NIOCore
    import Prometheus

    /// `projections run --follow --metrics-listen HOST:PORT`: a runner's own `GET /metrics`, for a
    /// runner without `flowlog serve` beside it. It reports what `serve`'s `/metrics` reports of the
    /// projectors (the head, each projector's checkpoint and lag, each tracker's deliveries), under
    /// the same names, so one dashboard and one set of alerts serve both.
    ///
    /// The runner's thread owns the log; it reads the figures between two catch-ups (`update`), and
    /// the listener's event loop only hands out the text of the last reading.
    public final class RunnerMetrics: Sendable {
        private let registry = PrometheusCollectorRegistry()
        private let metrics: ProjectorMetrics

        public init() {
            metrics = ProjectorMetrics(registry: registry)
        }

        /// Reads the head and the projectors' lags from `log` (on the thread that owns it) and
        /// takes the trackers' delivery totals.
        public func update(log: any LogStore, projectors: [String], deliveries: [TrackerDeliveries], spansDropped: Int = 0) throws {
            metrics.setSpansDropped(spansDropped)
            metrics.setHead(try log.lastPosition())
            for lag in try ProjectorLag.read(projectors, from: log) { metrics.setProjector(lag) }
            for tracker in deliveries { metrics.setDeliveries(tracker) }
        }

        /// Serves `GET /metrics` on `host:port` (port 0: any free one) until the process ends, and
        /// calls `onListening` with the address once it listens; throws if it cannot listen.
        public func listen(host: String, port: Int, onListening: @escaping @Sendable (String) -> Void) async throws {
            let router = Router()
            router.get("/metrics") { [registry] _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
            }
            var logger = Logger(label: "flowlog.projections.metrics")
            logger.logLevel = .error
            let application = Application(
                router: router, configuration: .init(address: .hostname(host, port: port), serverName: "flowlog"),
                onServerRunning: { channel in onListening(ListenAddress(host: host, port: channel.localAddress?.port ?? port).url) },
                logger: logger)
            try await application.runService(gracefulShutdownSignals: [])
        }
    }
#endif
