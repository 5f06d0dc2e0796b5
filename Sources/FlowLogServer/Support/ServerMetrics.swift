#if Network
    import FlowLog
    import Foundation
    import Prometheus
    import Synchronization

    /// The server's Prometheus metrics (swift-prometheus), served as text at `GET /metrics`.
    final class ServerMetrics: Sendable {
        let registry = PrometheusCollectorRegistry()

        private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
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
        private static var projectorCheckpoint: MetricNameDescriptor {
            name("projector_checkpoint", "", "The last position a projector took, by projector (read from the log)")
        }
        private static var projectorLagEvents: MetricNameDescriptor {
            name("projector_lag_events", "", "Events after a projector's checkpoint, by projector")
        }
        private static var projectorLagSeconds: MetricNameDescriptor {
            name("projector_lag", "seconds", "From the oldest event a projector has not taken to the newest, by projector; 0 when caught up")
        }
        private static var trackerDelivered: MetricNameDescriptor {
            name("tracker_deliveries", "total", "Messages a tracker's vendor acknowledged, by tracker (from its delivery journal)")
        }
        private static var trackerRetried: MetricNameDescriptor {
            name("tracker_retries", "total", "Requests a tracker sent again (429, 5xx, no answer), by tracker")
        }
        private static var trackerDeadLettered: MetricNameDescriptor {
            name("tracker_dead_letters", "total", "Messages a vendor refused for good, set aside as dead letters, by tracker")
        }
        private let appendDuration: DurationHistogram
        private let commitSize: ValueHistogram
        private let head: Gauge
        private let subscriberCount: Gauge
        private let sessionCount: Gauge
        /// The counters and histograms already made, by their labels: asking the registry each time
        /// (it checks the names and help text on every call) showed in the server's CPU profile.
        private struct Made {
            var requestCounters: [RequestLabels: Counter] = [:]
            var requestDurations: [String: DurationHistogram] = [:]
            var rejectionCounters: [String: Counter] = [:]
            var projectorGauges: [String: (checkpoint: Gauge, events: Gauge, seconds: Gauge)] = [:]
            var trackerCounters: [String: (delivered: Counter, retried: Counter, deadLettered: Counter)] = [:]
            /// Each tracker's totals at the scrape before: the counters move by the difference.
            var trackerTotals: [String: TrackerDeliveries] = [:]
        }

        private let made = Mutex(Made())
        private let outcomeCounters: [String: Counter]

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
        private static func cached<Key: Hashable, Metric>(_ key: Key, in cache: inout [Key: Metric], make: () -> Metric) -> Metric {
            if let metric = cache[key] { return metric }
            let made = make()
            cache[key] = made
            return made
        }

        func setHead(_ position: Int) { head.set(to: Double(position)) }

        /// A projector's checkpoint and how far behind the head it is, set at each scrape.
        func setProjector(_ lag: ProjectorLag) {
            let gauges = made.withLock { made in
                Self.cached(lag.projector, in: &made.projectorGauges) {
                    let labels = [("projector", lag.projector)]
                    return (
                        registry.makeGauge(descriptor: Self.projectorCheckpoint, labels: labels),
                        registry.makeGauge(descriptor: Self.projectorLagEvents, labels: labels),
                        registry.makeGauge(descriptor: Self.projectorLagSeconds, labels: labels)
                    )
                }
            }
            gauges.checkpoint.set(to: Double(lag.checkpoint))
            gauges.events.set(to: Double(lag.events))
            gauges.seconds.set(to: lag.seconds)
        }
        /// A tracker's delivery totals as its journal holds them: the counters move by what was
        /// added since the scrape before (never back: a journal begun anew counts from its new totals).
        func setDeliveries(_ totals: TrackerDeliveries) {
            let (counters, before) = made.withLock { made in
                let counters = Self.cached(totals.tracker, in: &made.trackerCounters) {
                    let labels = [("tracker", totals.tracker)]
                    return (
                        registry.makeCounter(descriptor: Self.trackerDelivered, labels: labels),
                        registry.makeCounter(descriptor: Self.trackerRetried, labels: labels),
                        registry.makeCounter(descriptor: Self.trackerDeadLettered, labels: labels)
                    )
                }
                let before = made.trackerTotals.updateValue(totals, forKey: totals.tracker)
                return (counters, before)
            }
            for (counter, now, then) in [
                (counters.delivered, totals.delivered, before?.delivered), (counters.retried, totals.retried, before?.retried),
                (counters.deadLettered, totals.deadLettered, before?.deadLettered),
            ] {
                let added = now - (then.map { $0 <= now ? $0 : 0 } ?? 0)
                if added > 0 { counter.increment(by: Int64(added)) }
            }
        }

        func setSubscribers(_ count: Int) { subscriberCount.set(to: Double(count)) }
        func setSessions(_ count: Int) { sessionCount.set(to: Double(count)) }

        func text() -> [UInt8] { registry.emitToBuffer() }
    }
#endif
