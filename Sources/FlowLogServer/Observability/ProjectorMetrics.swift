#if Network
    import Prometheus
    import Synchronization

    /// The head, each projector's checkpoint and lag, and each tracker's deliveries, in a Prometheus
    /// registry: the part of `flowlog serve`'s `/metrics` that a projector runner's own `/metrics`
    /// (`RunnerMetrics`) reports too, under the same names.
    final class ProjectorMetrics: Sendable {
        private let registry: PrometheusCollectorRegistry
        private let head: Gauge

        private static var checkpoint: MetricNameDescriptor {
            ServerMetrics.name("projector_checkpoint", "", "The last position a projector took, by projector (read from the log)")
        }
        private static var lagEvents: MetricNameDescriptor {
            ServerMetrics.name("projector_lag_events", "", "Events after a projector's checkpoint, by projector")
        }
        private static var lagSeconds: MetricNameDescriptor {
            ServerMetrics.name(
                "projector_lag", "seconds", "From the oldest event a projector has not taken to the newest, by projector; 0 when caught up")
        }
        private static var partitions: MetricNameDescriptor {
            ServerMetrics.name("projector_partitions", "", "How many parts a projector is split into (1: not split), by projector")
        }
        private static var generation: MetricNameDescriptor {
            ServerMetrics.name(
                "projector_lease_generation", "",
                "The generation of the lease a runner holds on a projector or part (PostgreSQL; 0 when nobody holds it)")
        }
        private static var delivered: MetricNameDescriptor {
            ServerMetrics.name("tracker_deliveries", "total", "Messages a tracker's vendor acknowledged, by tracker (from its delivery journal)")
        }
        private static var retried: MetricNameDescriptor {
            ServerMetrics.name("tracker_retries", "total", "Requests a tracker sent again (429, 5xx, no answer), by tracker")
        }
        private static var deadLettered: MetricNameDescriptor {
            ServerMetrics.name("tracker_dead_letters", "total", "Messages a vendor refused for good, set aside as dead letters, by tracker")
        }

        private static var spansDropped: MetricNameDescriptor {
            ServerMetrics.name(
                "spans_dropped", "total", "Spans the OTLP exporter could not send (a full queue, a collector that refused or did not answer)")
        }
        private let dropped: Counter
        private let droppedBefore = Mutex(0)

        private struct Made {
            var projectorGauges: [String: (checkpoint: Gauge, events: Gauge, seconds: Gauge, partitions: Gauge, generation: Gauge)] = [:]
            var trackerCounters: [String: (delivered: Counter, retried: Counter, deadLettered: Counter)] = [:]
            /// Each tracker's totals at the reading before: the counters move by the difference.
            var trackerTotals: [String: TrackerDeliveries] = [:]
        }
        private let made = Mutex(Made())

        init(registry: PrometheusCollectorRegistry) {
            self.registry = registry
            head = registry.makeGauge(descriptor: ServerMetrics.name("head_position", "", "The log's last position"), labels: [])
            dropped = registry.makeCounter(descriptor: Self.spansDropped, labels: [])
        }

        /// The process's spans dropped so far (0 when it exports none), as a counter of totals read.
        func setSpansDropped(_ total: Int) {
            let before = droppedBefore.withLock { before in
                defer { before = total }
                return before
            }
            Self.advance(dropped, to: total, from: before)
        }

        /// Moves a counter kept from totals read elsewhere by what was added since the reading
        /// before (`then`), never back: a total that fell (a journal begun anew) counts from its new value.
        private static func advance(_ counter: Counter, to now: Int, from then: Int?) {
            let added = now - (then.map { $0 <= now ? $0 : 0 } ?? 0)
            if added > 0 { counter.increment(by: Int64(added)) }
        }

        func setHead(_ position: Int) { head.set(to: Double(position)) }

        /// A projector's checkpoint and how far behind the head it is, set at each reading.
        func setProjector(_ lag: ProjectorLag) {
            let gauges = made.withLock { made in
                ServerMetrics.cached(lag.projector, in: &made.projectorGauges) {
                    let labels = [("projector", lag.projector)]
                    return (
                        registry.makeGauge(descriptor: Self.checkpoint, labels: labels),
                        registry.makeGauge(descriptor: Self.lagEvents, labels: labels),
                        registry.makeGauge(descriptor: Self.lagSeconds, labels: labels),
                        registry.makeGauge(descriptor: Self.partitions, labels: labels),
                        registry.makeGauge(descriptor: Self.generation, labels: labels)
                    )
                }
            }
            gauges.checkpoint.set(to: Double(lag.checkpoint))
            gauges.events.set(to: Double(lag.events))
            gauges.seconds.set(to: lag.seconds)
            gauges.partitions.set(to: Double(lag.partitions))
            gauges.generation.set(to: Double(lag.generation ?? 0))
        }

        /// A tracker's delivery totals as its journal holds them: the counters move by what was
        /// added since the reading before (never back: a journal begun anew counts from its new totals).
        func setDeliveries(_ totals: TrackerDeliveries) {
            let (counters, before) = made.withLock { made in
                let counters = ServerMetrics.cached(totals.tracker, in: &made.trackerCounters) {
                    let labels = [("tracker", totals.tracker)]
                    return (
                        registry.makeCounter(descriptor: Self.delivered, labels: labels),
                        registry.makeCounter(descriptor: Self.retried, labels: labels),
                        registry.makeCounter(descriptor: Self.deadLettered, labels: labels)
                    )
                }
                return (counters, made.trackerTotals.updateValue(totals, forKey: totals.tracker))
            }
            for (counter, now, then) in [
                (counters.delivered, totals.delivered, before?.delivered), (counters.retried, totals.retried, before?.retried),
                (counters.deadLettered, totals.deadLettered, before?.deadLettered),
            ] {
                Self.advance(counter, to: now, from: then)
            }
        }
    }
#endif
