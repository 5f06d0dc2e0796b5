#if Network
    import Dispatch
    import FlowLogBasics
    import Logging
    import OTel
    import ServiceLifecycle
    import Synchronization
    import Tracing

    /// Spans leaving the process over OTLP/HTTP, set up the way every OpenTelemetry SDK is: from the
    /// standard `OTEL_*` environment (docs/operations.md). Off unless an endpoint is named, so a
    /// `flowlog` nobody pointed at a collector bootstraps nothing and pays nothing.
    ///
    /// The exporter runs beside the command on its own tasks: a collector that is down or slow costs
    /// spans (dropped and counted in ``droppedSpans``), never a command's answer. ``finish(within:)``
    /// flushes what is queued when the command is done, for a bounded time.
    public final class Telemetry: Sendable {
        /// Why the environment does not describe an exporter this build can run.
        public struct SettingError: Error, CustomStringConvertible {
            public let description: String
        }

        private let diagnostics: TelemetryDiagnostics
        private let group: ServiceGroup
        private let stopped = DispatchSemaphore(value: 0)

        /// Spans that never reached the collector since the process started: `/metrics` reports them.
        public var droppedSpans: Int { diagnostics.droppedSpans }

        /// Starts exporting when `environment` names an OTLP endpoint and does not disable the SDK,
        /// bootstrapping the process's tracer; nil (and nothing bootstrapped) otherwise. Call once.
        public static func start(environment: [String: String], serviceName: String) throws(SettingError) -> Telemetry? {
            guard let configuration = try TelemetrySettings.configuration(environment, serviceName: serviceName) else { return nil }
            let diagnostics = TelemetryDiagnostics()
            var withLogger = configuration
            withLogger.diagnosticLogger = .custom(diagnostics.logger)
            let backend: (factory: any Tracer, service: any Service)
            do {
                let made = try OTel.makeTracingBackend(configuration: withLogger)
                backend = (made.factory, made.service)
            } catch {
                throw SettingError(description: "OpenTelemetry cannot export with these settings: \(error).")
            }
            if let unread = diagnostics.unreadSettings.first {
                throw SettingError(description: "\(unread); correct it or unset it (docs/operations.md lists the variables).")
            }
            InstrumentationSystem.bootstrap(backend.factory)
            return Telemetry(diagnostics: diagnostics, service: backend.service)
        }

        private init(diagnostics: TelemetryDiagnostics, service: any Service) {
            self.diagnostics = diagnostics
            let quiet = Logger(label: "flowlog.telemetry") { _ in SwiftLogNoOpLogHandler() }
            group = ServiceGroup(configuration: .init(services: [service], logger: quiet))
            let group = group
            let stopped = stopped
            Task.detached {
                try? await group.run()
                stopped.signal()
            }
        }

        /// Exports what is queued and stops, waiting at most `limit`: a command that is done does not
        /// wait longer for a collector, and what was not sent by then is lost with the process.
        /// Returns false when the exporter had not finished by then.
        public func finish(within limit: Duration = .seconds(1)) -> Bool {
            let group = group
            Task.detached { await group.triggerGracefulShutdown() }
            return stopped.wait(timeout: .now() + .nanoseconds(Int(limit.nanosecondCount))) == .success
        }
    }
#endif
