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
