#if Network
    import FlowLog
    import Foundation
    import Prometheus
    import Synchronization

    /// The server's Prometheus metrics (swift-prometheus), served as text at `GET /metrics`.
    final class ServerMetrics: Sendable {
        let registry = PrometheusCollectorRegistry()

        static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "flowlog", metricName: metric, unitName: unit, helpText: help)
        }

        /// Made when a metric is (the descriptor is not `Sendable`, so none is kept).
        private static var requests: MetricNameDescriptor {
            name("http_requests", "total", "HTTP requests answered, by method, route template and status")
        }
        private static var requestDuration: MetricNameDescriptor {
            name("http_request_duration", "seconds", "Time to the response head, by route template")
        }
        private static var commands: MetricNameDescriptor {
            name("commands", "total", "Commands answered, by outcome (accepted, duplicate, rejected)")
        }
        private static var rejections: MetricNameDescriptor { name("command_rejections", "total", "Rejected commands, by error code") }
        private let appendDuration: DurationHistogram
        private let commitSize: ValueHistogram
        private let subscriberCount: Gauge
        private let sessionCount: Gauge
        /// The counters and histograms already made, by their labels: asking the registry each time
        /// (it checks the names and help text on every call) showed in the server's CPU profile.
        private struct Made {
            var requestCounters: [RequestLabels: Counter] = [:]
            var requestDurations: [String: DurationHistogram] = [:]
            var rejectionCounters: [String: Counter] = [:]
        }

        private let made = Mutex(Made())
        private let outcomeCounters: [String: Counter]
        /// The head, the projectors' lags and the trackers' deliveries, as a runner's own
        /// `/metrics` reports them too (`RunnerMetrics`).
        let projectors: ProjectorMetrics

        private struct RequestLabels: Hashable {
            let method: String
            let route: String
            let status: Int
        }

        private static let latencyBuckets: [Duration] = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]

        init() {
            appendDuration = registry.makeDurationHistogram(
                descriptor: Self.name("append_duration", "seconds", "One group commit: deciding its commands and the durable append"),
                labels: [], buckets: Self.latencyBuckets)
            commitSize = registry.makeValueHistogram(
                descriptor: Self.name("commit_commands", "", "Commands decided in one group commit"),
                labels: [], buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384])
            projectors = ProjectorMetrics(registry: registry)
            subscriberCount = registry.makeGauge(descriptor: Self.name("subscribers", "", "Connected event-stream subscribers"), labels: [])
            sessionCount = registry.makeGauge(descriptor: Self.name("sessions", "", "Scratch sessions held in memory"), labels: [])
            var outcomes: [String: Counter] = [:]
            for outcome in ["accepted", "duplicate", "rejected"] {
                outcomes[outcome] = registry.makeCounter(descriptor: Self.commands, labels: [("outcome", outcome)])
            }
            outcomeCounters = outcomes
        }

        func recordRequest(method: String, route: String, status: Int, duration: Duration) {
            let labels = RequestLabels(method: method, route: route, status: status)
            let (counter, histogram) = made.withLock { made in
                let counter = Self.cached(labels, in: &made.requestCounters) {
                    registry.makeCounter(descriptor: Self.requests, labels: [("method", method), ("route", route), ("status", String(status))])
                }
                let histogram = Self.cached(route, in: &made.requestDurations) {
                    registry.makeDurationHistogram(descriptor: Self.requestDuration, labels: [("route", route)], buckets: Self.latencyBuckets)
                }
                return (counter, histogram)
            }
            counter.increment()
            histogram.record(duration)
        }

        func recordCommit(duration: Duration, commands: Int) {
            appendDuration.record(duration)
            commitSize.record(Double(commands))
        }

        func recordOutcomes(_ outcomes: some Sequence<CommandOutcome>) {
            var accepted: Int64 = 0
            var duplicates: Int64 = 0
            var rejected: [String: Int64] = [:]
            for outcome in outcomes {
                switch outcome {
                case .accepted(let acceptance): if acceptance.duplicate { duplicates += 1 } else { accepted += 1 }
                case .rejected(_, let rejection): rejected[rejection.code.rawValue, default: 0] += 1
                }
            }
            recordCounts(accepted: accepted, duplicates: duplicates, rejected: rejected)
        }

        /// Lines that never became commands (malformed JSON, an unknown type).
        func recordRejections(_ codes: some Sequence<String>) {
            var rejected: [String: Int64] = [:]
            for code in codes { rejected[code, default: 0] += 1 }
            recordCounts(accepted: 0, duplicates: 0, rejected: rejected)
        }

        private func recordCounts(accepted: Int64, duplicates: Int64, rejected: [String: Int64]) {
            if accepted > 0 { outcomeCounters["accepted"]!.increment(by: accepted) }
            if duplicates > 0 { outcomeCounters["duplicate"]!.increment(by: duplicates) }
            var total: Int64 = 0
            for (code, count) in rejected {
                let counter = made.withLock { made in
                    Self.cached(code, in: &made.rejectionCounters) { registry.makeCounter(descriptor: Self.rejections, labels: [("code", code)]) }
                }
                counter.increment(by: count)
                total += count
            }
            if total > 0 { outcomeCounters["rejected"]!.increment(by: total) }
        }

        /// The metric kept under `key`, made on its first use (the caller holds `made`'s lock).
        static func cached<Key: Hashable, Metric>(_ key: Key, in cache: inout [Key: Metric], make: () -> Metric) -> Metric {
            if let metric = cache[key] { return metric }
            let made = make()
            cache[key] = made
            return made
        }

        func setSubscribers(_ count: Int) { subscriberCount.set(to: Double(count)) }
        func setSessions(_ count: Int) { sessionCount.set(to: Double(count)) }

        func text() -> [UInt8] { registry.emitToBuffer() }
    }
#endif
