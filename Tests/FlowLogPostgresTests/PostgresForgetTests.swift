// Needs the `Network` trait: PostgreSQL and the HTTPS transport are built only with it.
#if Network
    import FlowDomain
    import FlowLogBasics
    @testable import FlowLogPostgres
    import FlowLogStore
    import FlowLogTesting
    import Foundation
    import Testing

    private func requests(_ stream: String, count: Int, from first: Int = 0) -> [AppendRequest] {
        (0..<count).map { index in
            AppendRequest(
                stream: stream, expectedVersion: nil, commandId: "\(stream)-\(first + index)",
                events: [
                    NewEvent(
                        eventId: EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)),
                        timestamp: Timestamp(microseconds: 1_798_761_600_000_000), actor: .user,
                        event: .navigation(.modalPresented))
                ])
        }
    }

    @Suite("PostgreSQL backend: forgetting a stream")
    struct PostgresForgetTests {
        /// `forget` while 4 writers, each with its own connection, append to other streams: every
        /// acknowledged event of theirs is in the log, in a chain that verifies, and the stream's
        /// events are counted as forgotten.
        @Test func forgetWhileFourWritersAppendLosesNoneOfTheirEvents() throws {
            let url = PostgresServer.shared.url()
            let setup = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            for results in [try setup.append(requests("victim", count: 200))] {
                #expect(results.allSatisfy { if case .appended = $0 { true } else { false } })
            }
            let acknowledged = Shared<[EventID]>([])
            let failures = Shared<[String]>([])
            let started = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for writer in 0..<4 {
                done.enter()
                Thread {
                    defer { done.leave() }
                    do {
                        let log = try PostgresEventLog.open(url: url, access: .readWrite)
                        for batch in 0..<60 {
                            if batch == 5 { started.signal() }
                            let batchRequests = requests("w\(writer)", count: 5, from: batch * 5)
                            let results = try log.append(batchRequests)
                            for (request, result) in zip(batchRequests, results) {
                                guard case .appended = result else {
                                    failures.with { $0.append("\(request.commandId!): \(result)") }
                                    continue
                                }
                                acknowledged.with { $0 += request.events.map(\.eventId) }
                            }
                        }
                    } catch {
                        failures.with { $0.append("writer \(writer): \(error)") }
                    }
                }.start()
            }
            for _ in 0..<4 { started.wait() }
            let forgotten = try setup.forget(stream: "victim")
            #expect(forgotten.events == 200 && forgotten.firstPosition == 1 && forgotten.lastPosition == 200)
            done.wait()
            #expect(failures.with { $0 } == [])

            let log = try PostgresEventLog.open(url: url, access: .readOnly)
            var seen = Set<EventID>()
            try log.forEachEvent(from: 1, through: nil) { event in
                #expect(event.stream != "victim" && !event.isForgotten)
                seen.insert(event.eventId)
                return true
            }
            let ids = acknowledged.with { $0 }
            #expect(ids.count == 4 * 60 * 5)
            #expect(Set(ids).isSubset(of: seen))
            var records = 0
            try log.forEachRecord(from: 1, through: nil) { _ in
                records += 1
                return true
            }
            let last = try log.lastPosition()
            #expect(records == 200 + ids.count && records == last)
            let report = try log.checkIntegrity()
            #expect(report.isIntact && report.forgotten == 200 && report.events == records)
            #expect(try log.version(of: "victim") == 0)
            #expect(throws: ForgetRefusal.unknownStream("victim", location: log.location)) { try setup.forget(stream: "victim") }
        }

        /// A log object that appended before another process upgraded the log writes the salted layout
        /// after it: each append reads the schema under the lock (its guessed head is not trusted).
        @Test func anAppendAfterAnUpgradeElsewhereWritesTheNewLayout() throws {
            let server = PostgresServer.shared
            let schema = server.freshName("older")
            let url = server.url(schema: schema)
            let writer = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            _ = try server.psql("UPDATE \(schema).meta SET value = '2' WHERE key = 'schema'")
            _ = try writer.append(requests("a", count: 3))
            #expect(try server.psql("SELECT string_agg(get_byte(record, 0)::text, ',' ORDER BY position) FROM \(schema).events") == "1,1,1")
            #expect(throws: ForgetRefusal.upgradeRequired(location: writer.location, logSchema: 2)) { try writer.forget(stream: "a") }
            let upgrader = try PostgresEventLog.open(url: url, access: .readWrite)
            _ = try upgrader.updateSettings { settings, _ in
                var raised = settings
                raised.logSchema = 3
                return raised
            }
            _ = try writer.append(requests("a", count: 2, from: 3))
            #expect(try server.psql("SELECT string_agg(get_byte(record, 0)::text, ',' ORDER BY position) FROM \(schema).events") == "2,2,2,2,2")
            #expect(try writer.checkIntegrity().isIntact)
            #expect(try writer.forget(stream: "a").events == 5)
        }

        /// The upgrade's rewrite is one transaction: when it fails past its first chunk (a damaged
        /// record at position 4,500), the rows it had rewritten are as they were, and so is the schema.
        @Test func anUpgradeThatFailsMidwayLeavesTheLogAsItWas() throws {
            let server = PostgresServer.shared
            let schema = server.freshName("older")
            let url = server.url(schema: schema)
            let log = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            // As a schema-2 build created it: stream NOT NULL.
            _ = try server.psql("UPDATE \(schema).meta SET value = '2' WHERE key = 'schema'")
            _ = try server.psql("ALTER TABLE \(schema).events ALTER COLUMN stream SET NOT NULL")
            for batch in 0..<10 { _ = try log.append(requests("s\(batch)", count: 500)) }
            _ = try server.psql("UPDATE \(schema).events SET record = set_byte(record, 20, get_byte(record, 20) # 1) WHERE position = 4500")
            let before = try server.psql("SELECT md5(string_agg(record::text, ',' ORDER BY position)) FROM \(schema).events")
            #expect(throws: FlowLogError.self) {
                _ = try log.updateSettings { settings, _ in
                    var raised = settings
                    raised.logSchema = 3
                    return raised
                }
            }
            #expect(try server.psql("SELECT md5(string_agg(record::text, ',' ORDER BY position)) FROM \(schema).events") == before)
            #expect(try log.settings().logSchema == 2)
            #expect(
                try server.psql("SELECT attnotnull FROM pg_attribute WHERE attrelid = '\(schema).events'::regclass AND attname = 'stream'") == "t",
                "the upgrade's ALTER was rolled back with it")
        }
    }
#endif
