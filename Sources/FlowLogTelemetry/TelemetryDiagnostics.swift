#if Network
    import Logging
    import Synchronization

    /// What swift-otel says about itself, turned into numbers and sentences FlowLog reports: spans it
    /// dropped (a full queue, a batch the collector refused or never answered) and environment values
    /// it could not read. swift-otel keeps its counters private and says these things through its
    /// diagnostic logger only, so this is the logger it is given; nothing it says reaches the
    /// terminal, where a command's own output is.
    final class TelemetryDiagnostics: Sendable {
        private struct Figures {
            var droppedSpans = 0
            var unreadSettings: [String] = []
        }

        private let figures = Mutex(Figures())

        /// Spans that never reached the collector, since the process started.
        var droppedSpans: Int { figures.withLock { $0.droppedSpans } }

        /// One sentence per `OTEL_*` variable whose value swift-otel could not use.
        var unreadSettings: [String] { figures.withLock { $0.unreadSettings } }

        var logger: Logger {
            Logger(label: "flowlog.telemetry") { _ in Handler(diagnostics: self) }
        }

        fileprivate func note(_ message: String, _ metadata: Logger.Metadata) {
            // The messages swift-otel's batch span processor writes when spans are lost.
            switch message {
            case "Spans were dropped this iteration because queue was full":
                let count = metadata["dropped_count"].flatMap { Int("\($0)") } ?? 1
                figures.withLock { $0.droppedSpans += count }
            case "Failed to export batch.":
                let count = metadata["batch_size"].flatMap { Int("\($0)") } ?? 1
                figures.withLock { $0.droppedSpans += count }
            case "Failed to update configuration from environment":
                let key = metadata["environment_key"].map { "\($0)" } ?? "an OTEL_ variable"
                // Headers carry API keys and endpoints may carry user:password: their values are
                // named, never shown.
                let secret = key.hasSuffix("HEADERS") || key.hasSuffix("ENDPOINT")
                let value = secret ? "…" : metadata["environment_value"].map { "\($0)" } ?? ""
                let hint = metadata["hint"].map { " (\($0))" } ?? ""
                figures.withLock { $0.unreadSettings.append("\(key)=\(value) is not a value OpenTelemetry knows\(hint)") }
            default:
                break
            }
        }

        private struct Handler: LogHandler {
            let diagnostics: TelemetryDiagnostics
            var metadata: Logger.Metadata = [:]
            /// Always warnings: swift-otel sets its diagnostic logger's level from `OTEL_LOG_LEVEL`,
            /// and at `error` the drops and unread settings would never reach `note`.
            var logLevel: Logger.Level {
                get { .warning }
                set {}
            }

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                var all = metadata
                if let more = event.metadata { all.merge(more) { $1 } }
                diagnostics.note(event.message.description, all)
            }
        }
    }
#endif
