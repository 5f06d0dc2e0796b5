#if Network
    public import FlowLogStore
    import Hummingbird
    import Logging
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
            /// Called with the streams about to be forgotten (`DELETE /streams/{stream}`, the daily
            /// retention), before they are: the composition root takes their lines out of the trackers'
            /// files there, or throws to leave them be (a tracker runner holds the files).
            public var beforeForgetting: @Sendable ([String]) throws -> Void = { _ in }
            /// The operator's pseudonym key (`--key-file`, as `flowlog forget` takes it): forgets record
            /// the stream's keyed pseudonym, and recorded events of a stream forgotten so are refused
            /// (410). Without it the server takes no recorded events (`POST /streams/{stream}/events`).
            public var erasureKey: [UInt8]?
            /// The projectors whose checkpoints `/metrics` reports (`flowlog projections status`'s
            /// list): read from the log at each scrape, so the figures are true whichever process runs them.
            public var projectors: [String] = []
            /// The trackers' delivery counters (messages delivered, retried, dead-lettered), read at
            /// each scrape of `/metrics` on a reader thread: a tracker delivers in its runner's
            /// process and records what it did beside its dead letters.
            public var deliveries: @Sendable () -> [TrackerDeliveries] = { [] }
            /// The spans this process's exporter dropped so far (`flowlog_spans_dropped_total`).
            public var spansDropped: @Sendable () -> Int = { 0 }

            public init(
                host: String, port: Int, tokens: TokenFile?, corsOrigins: [String] = [], limits: ServerLimits = ServerLimits(),
                readerThreads: Int = 3, onListening: @escaping @Sendable (String) -> Void
            ) {
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
            let logger = Self.logger(writing: JSONLineLogHandler.standardError)
            let parts = try Parts(log: log, options: options, logger: logger)
            let group = ServiceGroup(
                configuration: .init(
                    services: [
                        .init(service: parts.logThreads), .init(service: parts.application, successTerminationBehavior: .gracefullyShutdownGroup),
                    ],
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: logger))
            try await group.run()
        }

        /// The server's logger: JSON lines (`label` flowlog.serve) from `info` up, each handed to
        /// `write` whole; `run` writes them to standard error, the tests keep them.
        static func logger(writing write: @escaping @Sendable ([UInt8]) -> Void) -> Logger {
            var logger = Logger(label: "flowlog.serve") { JSONLineLogHandler(label: $0, output: write) }
            logger.logLevel = .info
            return logger
        }
    }
#endif
