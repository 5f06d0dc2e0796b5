// Needs the `Network` trait: PostgreSQL is built only with it.
#if Network
    import FlowLogBasics
    @testable import FlowLogPostgres
    import FlowLogStore
    import FlowLogTesting
    import Foundation
    import Testing

    /// Leases that expire (`leaseProjector(_:expiringAfter:)`): a holder whose lease moved on to
    /// another runner has its checkpoint writes refused inside their transactions, and knows it lost
    /// the lease at its next renewal. The takeover itself, with processes paused and resumed, is
    /// `ProjectorStandbyCLITests`.
    @Suite("PostgreSQL leases that expire")
    struct PostgresLeaseTests {
        @Test func aHolderWhoseLeaseMovedOnIsRefusedAndMovesNothing() throws {
            let server = PostgresServer.shared
            let schema = server.freshName("fence")
            let log = try PostgresEventLog.open(url: server.url(schema: schema), access: .readWriteCreating)
            let tracker = try log.leaseProjector("tracker.segment", expiringAfter: 3)
            let storage = try log.leaseProjector("storage", expiringAfter: 3)
            try log.setCheckpoint(5, of: "tracker.segment")
            try log.updateReadModels { transaction in try transaction.setCheckpoint(4) }
            #expect(try log.checkpoint(of: "tracker.segment") == 5)
            #expect(try log.checkpoint(of: "storage") == 4)
            #expect(try server.psql("SELECT min(generation) FROM \"\(schema)\".leases") == "1")
            #expect(tracker.holds && storage.holds)

            // Another runner took the leases over, as a standby does once they expired.
            _ = try server.psql("UPDATE \"\(schema)\".leases SET generation = generation + 1")
            let lost = { (projector: String) in FlowLogError.busy(ProjectorBusy(projector: projector, pid: nil, lost: true)) }
            #expect(throws: lost("tracker.segment")) { try log.setCheckpoint(9, of: "tracker.segment") }
            #expect(throws: lost("storage")) { try log.updateReadModels { transaction in try transaction.setCheckpoint(8) } }
            #expect(try log.checkpoint(of: "tracker.segment") == 5, "nothing moved")
            #expect(try log.checkpoint(of: "storage") == 4, "nothing moved")
            // Renewed every second, the leases find their generation gone and are lost for good.
            let deadline = Date().addingTimeInterval(5)
            while tracker.holds || storage.holds, Date() < deadline { usleep(50_000) }
            #expect(!tracker.holds && !storage.holds)
        }

        /// A renewal the server never answers (here its row is locked by another session; a runner
        /// resumed after a pause can meet the same) costs the lease, and dropping the lease waits for
        /// it no longer than the lease's timeout, not the minute of the log's operation timeout.
        @Test func aRenewalWithoutAnAnswerLosesTheLeaseAndHoldsNothingUp() throws {
            let server = PostgresServer.shared
            let schema = server.freshName("unanswered")
            let log = try PostgresEventLog.open(url: server.url(schema: schema), access: .readWriteCreating)
            var lease: (any ProjectorLease)? = try log.leaseProjector("tracker.ga4", expiringAfter: 2)
            let blocking = "SELECT 1 FROM \"\(schema)\".leases WHERE projector = 'tracker.ga4' FOR UPDATE; SELECT pg_sleep(30)"
            let blocker = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? server.psql("BEGIN; \(blocking); COMMIT")
                blocker.signal()
            }
            defer {
                let sleeping = "query LIKE '%\(schema)%pg_sleep(30)%' AND pid <> pg_backend_pid()"
                _ = try? server.psql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE \(sleeping)")
                blocker.wait()
            }

            let deadline = Date().addingTimeInterval(6)
            while lease?.holds == true, Date() < deadline { usleep(50_000) }
            #expect(lease?.holds == false, "a renewal unanswered for the lease's timeout loses it")
            let dropping = Date()
            lease = nil
            let waited = Date().timeIntervalSince(dropping)
            #expect(waited < 4, "dropped in \(waited) s")
        }

        @Test func aLeaseWithoutExpiryIsTheSessionLockAsBefore() throws {
            let server = PostgresServer.shared
            let schema = server.freshName("plain")
            let log = try PostgresEventLog.open(url: server.url(schema: schema), access: .readWriteCreating)
            let lease = try log.leaseProjector("storage")
            _ = try server.psql("UPDATE \"\(schema)\".leases SET generation = generation + 1")
            try log.updateReadModels { transaction in try transaction.setCheckpoint(2) }
            #expect(lease.holds)
            #expect(try log.checkpoint(of: "storage") == 2)
        }
    }
#endif
