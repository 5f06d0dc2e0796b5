#if Network
    import FlowLog
    import Foundation
    import Prometheus

    /// The server's Prometheus metrics (swift-prometheus), served as text at `GET /metrics`.
    final class ServerMetrics: @unchecked Sendable {
        let registry = PrometheusCollectorRegistry()

        private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "flowlog", metricName: metric, unitName: unit, helpText: help)
        }

        private let requests = name("http_requests", "total", "HTTP requests answered, by method, route template and status")
        private let requestDuration = name("http_request_duration", "seconds", "Time to the response head, by route template")
        private let commands = name("commands", "total", "Commands answered, by outcome (accepted, duplicate, rejected)")
        private let rejections = name("command_rejections", "total", "Rejected commands, by error code")
        private let appendDuration: DurationHistogram
        private let commitSize: ValueHistogram
        private let head: Gauge
        private let subscriberCount: Gauge
        private let sessionCount: Gauge
        /// The counters and histograms already made, by their labels: asking the registry each time
        /// (it checks the names and help text on every call) cost about 3% of the server's CPU.
        private let cacheLock = NSLock()
        private var requestCounters: [RequestLabels: Counter] = [:]
        private var requestDurations: [String: DurationHistogram] = [:]
        private let outcomeCounters: [String: Counter]
        private var rejectionCounters: [String: Counter] = [:]

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
            head = registry.makeGauge(descriptor: Self.name("head_position", "", "The log's last position"), labels: [])
            subscriberCount = registry.makeGauge(descriptor: Self.name("subscribers", "", "Connected event-stream subscribers"), labels: [])
            sessionCount = registry.makeGauge(descriptor: Self.name("sessions", "", "Scratch sessions held in memory"), labels: [])
            var outcomes: [String: Counter] = [:]
            for outcome in ["accepted", "duplicate", "rejected"] {
                outcomes[outcome] = registry.makeCounter(descriptor: commands, labels: [("outcome", outcome)])
            }
            outcomeCounters = outcomes
        }

        func recordRequest(method: String, route: String, status: Int, duration: Duration) {
            let labels = RequestLabels(method: method, route: route, status: status)
            cacheLock.lock()
            let counter = Self.cached(labels, in: &requestCounters) {
                registry.makeCounter(descriptor: requests, labels: [("method", method), ("route", route), ("status", String(status))])
            }
            let histogram = Self.cached(route, in: &requestDurations) {
                registry.makeDurationHistogram(descriptor: requestDuration, labels: [("route", route)], buckets: Self.latencyBuckets)
            }
            cacheLock.unlock()
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
                cacheLock.lock()
                let counter = Self.cached(code, in: &rejectionCounters) { registry.makeCounter(descriptor: rejections, labels: [("code", code)]) }
                cacheLock.unlock()
                counter.increment(by: count)
                total += count
            }
            if total > 0 { outcomeCounters["rejected"]!.increment(by: total) }
        }

        /// The metric kept under `key`, made on its first use (the caller holds `cacheLock`).
        private static func cached<Key: Hashable, Metric>(_ key: Key, in cache: inout [Key: Metric], make: () -> Metric) -> Metric {
            if let metric = cache[key] { return metric }
            let made = make()
            cache[key] = made
            return made
        }

        func setHead(_ position: Int) { head.set(to: Double(position)) }
        func setSubscribers(_ count: Int) { subscriberCount.set(to: Double(count)) }
        func setSessions(_ count: Int) { sessionCount.set(to: Double(count)) }

        func text() -> [UInt8] { registry.emitToBuffer() }
    }
#endif
