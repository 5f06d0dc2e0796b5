#if Network
    import FlowLogBasics
    import FlowLogServer
    import FlowLogTesting
    import Foundation
    import Synchronization
    import Testing

    /// `/metrics` reports each projector's checkpoint and lag as the log holds them, so it tells the
    /// truth about a runner in another process, and about one that is not running at all.
    @Suite("serve: projector lag in the metrics")
    struct ServerProjectorMetricsTests {
        private static let projectors = ["storage", "tracker.segment", "tracker.ga4"]

        /// The time of the event at each position of the served log, read by another process.
        private static func timestamps(_ db: String) throws -> [Timestamp] {
            let export = try FlowLogProcess.run(["export", "--db", db])
            #expect(export.status == 0, "\(export.stderr)")
            return try export.stdout.split(separator: "\n").map { line in
                guard case .string(let text)? = try JSONParser.parse(String(line))["timestamp"],
                    let time = Array(text.utf8).withUnsafeBytes({ Timestamp.parseRFC3339($0) })
                else { throw FlowLogError.invalidInput("no timestamp in \(line)") }
                return time
            }
        }

        private static func value(_ metric: String, _ projector: String, in text: String) -> Double? {
            let prefix = "\(metric){projector=\"\(projector)\"} "
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
        }

        /// A log no projector has taken yet: an imported session (`flowlog demo` would run them).
        private static func importedSession(_ db: String) throws {
            let imported = try FlowLogProcess.run([
                "import", FlowLogProcess.fixtures.appendingPathComponent("bugs/coupon-over-100.ndjson").path, "--db", db,
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
        }

        @Test func aProjectorNeverRunLagsByTheWholeLogAndARunElsewhereCatchesItUp() async throws {
            try await ServedInProcess.test(projectors: Self.projectors, prepare: Self.importedSession) { server in
                let times = try Self.timestamps(server.db)
                let count = Double(times.count)
                let behind = Double(times.last!.microseconds - times[0].microseconds) / 1_000_000
                #expect(times.count > 1 && behind > 0)
                let before = try await server.get("/metrics").text
                for projector in Self.projectors {
                    #expect(Self.value("flowlog_projector_checkpoint", projector, in: before) == 0, "\(projector)")
                    #expect(Self.value("flowlog_projector_lag_events", projector, in: before) == count, "\(projector)")
                    #expect(Self.value("flowlog_projector_lag_seconds", projector, in: before) == behind, "\(projector)")
                }

                // A runner in another process, as on another machine: the server reads its checkpoints from the log.
                let scratch = TemporaryDirectory()
                let run = try FlowLogProcess.run(["projections", "run", "--tracker-dir", scratch.child("trackers"), "--db", server.db])
                #expect(run.status == 0, "\(run.stderr)")
                let caughtUp = try await server.get("/metrics").text
                for projector in Self.projectors {
                    #expect(Self.value("flowlog_projector_checkpoint", projector, in: caughtUp) == count, "\(projector)")
                    #expect(Self.value("flowlog_projector_lag_events", projector, in: caughtUp) == 0, "\(projector)")
                    #expect(Self.value("flowlog_projector_lag_seconds", projector, in: caughtUp) == 0, "\(projector)")
                }

                // The log moves on without the runner.
                let answer = try await server.post("/commands", json: #"{"type":"app.launched","hasOnboarded":false,"stream":"later"}"#)
                #expect(answer.status == 200, "\(answer.text)")
                let behindAgain = try await server.get("/metrics").text
                for projector in Self.projectors {
                    #expect(Self.value("flowlog_projector_checkpoint", projector, in: behindAgain) == count, "\(projector)")
                    #expect(Self.value("flowlog_projector_lag_events", projector, in: behindAgain) == 1, "\(projector)")
                    #expect(Self.value("flowlog_projector_lag_seconds", projector, in: behindAgain) == 0, "one event: oldest and newest are one")
                }
            }
        }

        private static func tracker(_ metric: String, _ tracker: String, in text: String) -> Double? {
            let prefix = "\(metric){tracker=\"\(tracker)\"} "
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
        }

        /// The trackers' deliveries, retries and dead letters are counters that move by what each
        /// scrape finds added to the totals the runners recorded, and never back.
        @Test func trackerDeliveriesAreCountersThatFollowTheRecordedTotals() async throws {
            let totals = Totals([TrackerDeliveries(tracker: "segment", delivered: 40, retried: 3, deadLettered: 1)])
            try await ServedInProcess.test(deliveries: { totals.value }) { server in
                let first = try await server.get("/metrics").text
                #expect(Self.tracker("flowlog_tracker_deliveries_total", "segment", in: first) == 40, "\(first)")
                #expect(Self.tracker("flowlog_tracker_retries_total", "segment", in: first) == 3)
                #expect(Self.tracker("flowlog_tracker_dead_letters_total", "segment", in: first) == 1)
                #expect(Self.tracker("flowlog_tracker_deliveries_total", "ga4", in: first) == nil, "a tracker that never posted")

                totals.set([
                    TrackerDeliveries(tracker: "segment", delivered: 100, retried: 3, deadLettered: 2),
                    TrackerDeliveries(tracker: "ga4", delivered: 7, retried: 0, deadLettered: 0),
                ])
                let second = try await server.get("/metrics").text
                #expect(Self.tracker("flowlog_tracker_deliveries_total", "segment", in: second) == 100)
                #expect(Self.tracker("flowlog_tracker_dead_letters_total", "segment", in: second) == 2)
                #expect(Self.tracker("flowlog_tracker_deliveries_total", "ga4", in: second) == 7)

                // A journal begun anew (its folder removed): the counter goes on from where it was.
                totals.set([TrackerDeliveries(tracker: "segment", delivered: 5, retried: 0, deadLettered: 0)])
                let third = try await server.get("/metrics").text
                #expect(Self.tracker("flowlog_tracker_deliveries_total", "segment", in: third) == 105)
                #expect(Self.tracker("flowlog_tracker_retries_total", "segment", in: third) == 3)
            }
        }

        private final class Totals: Sendable {
            private let totals: Mutex<[TrackerDeliveries]>
            init(_ totals: [TrackerDeliveries]) { self.totals = Mutex(totals) }
            var value: [TrackerDeliveries] { totals.withLock { $0 } }
            func set(_ new: [TrackerDeliveries]) { totals.withLock { $0 = new } }
        }
    }
#endif
