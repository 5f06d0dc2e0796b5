// Needs the `Network` trait: PostgreSQL and the HTTPS transport are built only with it.
#if Network
    import FlowDomain
    @testable import FlowLog
    import FlowLogBasics
    @testable import FlowLogHistory
    import FlowLogMemory
    @testable import FlowLogPostgres
    @testable import FlowLogProjections
    import FlowLogStore
    import FlowLogSystem
    import FlowLogTesting
    import Foundation
    import Testing

    private func randomID() -> EventID { EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)) }

    private func request(_ stream: String, id: String? = nil, expected: Int? = nil, count: Int = 1) -> AppendRequest {
        AppendRequest(
            stream: stream, expectedVersion: expected, commandId: id,
            events: (0..<count).map { _ in
                NewEvent(
                    eventId: randomID(), timestamp: Timestamp(microseconds: 1_798_761_600_000_000), actor: .user, event: .navigation(.modalPresented))
            })
    }

    /// A log filled through the pipeline: awkward names, orders, several streams.
    private func filledLog(_ url: String = PostgresServer.shared.url()) throws -> PostgresEventLog {
        let log = try PostgresEventLog.open(url: url, access: .readWriteCreating)
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let names = ["Mug, \"large\"", "line\nbreak", "caf\u{E9} \u{65E5}\u{672C} \u{1F600}", " padded ", "", "back\\slash\r\n\ttab"]
        var envelopes: [CommandEnvelope] = []
        for (index, name) in names.enumerated() {
            envelopes.append(
                CommandEnvelope(
                    stream: "s\(index % 3)", commandId: "c\(index)", correlationId: "k:\(index)",
                    command: .cart(.addProduct(.init(productId: "p\(index)", name: name, unitPrice: 100 * (index + 1), quantity: index + 1)))))
        }
        envelopes += [
            CommandEnvelope(stream: "s0", command: .cart(.applyDiscount(.init(discountId: "D", percent: 10, productId: nil)))),
            CommandEnvelope(stream: "s0", command: .cart(.checkout)),
            CommandEnvelope(stream: "s0", command: .payment(.failed(.init(reason: "card \"declined\", try again\n")))),
            CommandEnvelope(stream: "s0", command: .cart(.checkout)),
            CommandEnvelope(stream: "s0", command: .payment(.succeeded(.init(orderId: "o-1")))),
            CommandEnvelope(stream: "s1", command: .app(.launched(.init(hasOnboarded: true)))),
            CommandEnvelope(stream: "s1", command: .home(.selectTab(.init(tab: 1)))),
            CommandEnvelope(stream: "s2", command: .cart(.checkout)),
            CommandEnvelope(stream: "s2", command: .payment(.succeeded(.init(orderId: "o-2")))),
        ]
        for envelope in envelopes { _ = try processor.handle([envelope]) }
        return log
    }

    private func export(_ log: any EventLog) throws -> String {
        let output = BufferOutput()
        try EventExport(format: .ndjson).run(from: log, to: output)
        return output.text
    }

    /// The schema name a URL of the test server names.
    private func schema(of url: String) -> String { String(url.split(separator: "schema=").last!.prefix { $0 != "&" }) }

    @Suite("PostgreSQL backend")
    struct PostgresLogTests {
        let server = PostgresServer.shared

        @Test func aCommandIdIsIdempotentAcrossLogObjects() throws {
            let url = server.url()
            let first = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            let second = try PostgresEventLog.open(url: url, access: .readWrite)
            let accepted = try first.append([request("a", id: "cmd-1", count: 2)])
            let again = try second.append([request("a", id: "cmd-1", expected: 7)])
            #expect(accepted == [.appended(CommandReceipt(firstPosition: 1, eventCount: 2, version: 2))])
            #expect(again == [.duplicate(CommandReceipt(firstPosition: 1, eventCount: 2, version: 2))])
            #expect(try second.lastPosition() == 2)
            #expect(
                try second.append([request("a", id: "cmd-2"), request("a", id: "cmd-2")])
                    == [
                        .appended(CommandReceipt(firstPosition: 3, eventCount: 1, version: 3)),
                        .duplicate(CommandReceipt(firstPosition: 3, eventCount: 1, version: 3)),
                    ],
                "a repeated id in one batch is a duplicate of the first")
        }

        @Test func aRowChangedWithUPDATEIsNamedByItsPosition() throws {
            let url = server.url()
            let log = try filledLog(url)
            #expect(try log.checkIntegrity().isIntact)
            let name = schema(of: url)
            try server.psql("UPDATE \(name).events SET data = jsonb_set(data, '{quantity}', '99') WHERE position = 3")
            var report = try log.checkIntegrity()
            #expect(report.problems.map(\.position) == [3])
            #expect(report.problems.first?.detail.contains("data") == true, "\(report.problems)")
            try server.psql("UPDATE \(name).events SET data = jsonb_set(data, '{quantity}', '3') WHERE position = 3")
            #expect(try log.checkIntegrity().isIntact, "the same value again, whatever jsonb's key order")
            try server.psql("UPDATE \(name).events SET stream = stream || 'x' WHERE position = 5")
            report = try log.checkIntegrity()
            #expect(report.problems.contains { $0.position == 5 && $0.detail.contains("stream") }, "\(report.problems)")
            try server.psql("UPDATE \(name).events SET stream = left(stream, -1) WHERE position = 5")
            // The record itself: one byte of the product name flipped, the chain breaks there.
            try server.psql("UPDATE \(name).events SET record = set_byte(record, 60, get_byte(record, 60) # 1) WHERE position = 7")
            report = try log.checkIntegrity()
            #expect(report.problems.first?.position == 7, "\(report.problems)")
            #expect(throws: FlowLogError.self) { try log.events() }
        }

        /// Stream versions are checked against `streams` by two walks in stream order, merged: a stored
        /// version that is wrong, a stream with events and no row, a row with no events, a gap.
        @Test func streamVersionsAreCheckedAgainstTheStreamsTable() throws {
            let url = server.url()
            let log = try filledLog(url)
            let name = schema(of: url)
            let stored = try log.streams()
            #expect(stored.map(\.stream) == ["s0", "s1", "s2"])
            try server.psql("UPDATE \(name).streams SET version = version + 4 WHERE stream = 's1'")
            try server.psql("DELETE FROM \(name).streams WHERE stream = 's2'")
            try server.psql("INSERT INTO \(name).streams VALUES ('s10', 3), ('zz', 1)")
            var report = try log.checkIntegrity()
            let details = report.problems.map { "\($0.stream ?? "-"): \($0.detail)" }
            #expect(
                details.contains("s1: the stream's stored version is \(stored[1].version + 4), but its events go up to version \(stored[1].version)"),
                "\(details)")
            #expect(details.contains("s2: the stream has events up to version \(stored[2].version) but no stored version"), "\(details)")
            #expect(details.contains("s10: the stream's stored version is 3, but its events go up to version 0"), "\(details)")
            #expect(details.contains("zz: the stream's stored version is 1, but its events go up to version 0"), "\(details)")
            #expect(report.problems.count == 4 && report.streams == 4, "\(details)")
            try server.psql("UPDATE \(name).streams SET version = version - 4 WHERE stream = 's1'")
            try server.psql("INSERT INTO \(name).streams VALUES ('s2', \(stored[2].version))")
            try server.psql("DELETE FROM \(name).streams WHERE stream IN ('s10', 'zz')")
            #expect(try log.checkIntegrity().isIntact)
            // A version taken out of the middle of s0 (its row and record kept apart): a gap in the versions.
            try server.psql("UPDATE \(name).events SET version = version + 100 WHERE stream = 's0' AND version = 2")
            report = try log.checkIntegrity()
            #expect(
                report.problems.contains { $0.stream == "s0" && $0.detail.hasPrefix("it is version 3 of its stream, which was at version 1") },
                "\(report.problems)")
        }

        @Test func aNewerSchemaIsRefusedAndLeftAsItIs() throws {
            let url = server.url()
            _ = try filledLog(url)
            try server.psql("UPDATE \(schema(of: url)).meta SET value = '9' WHERE key = 'schema'")
            #expect(throws: FlowLogError.newerSchema(path: try PostgresURL(url).redacted, found: 9, supported: PostgresEventLog.logSchemaVersion)) {
                try PostgresEventLog.open(url: url, access: .readWriteCreating)
            }
            #expect(try server.psql("SELECT value FROM \(schema(of: url)).meta WHERE key = 'schema'") == "9")
        }

        @Test func aSchemaWithAForeignEventsTableIsRefusedAndUntouched() throws {
            let name = server.freshName("foreign")
            try server.psql(
                "CREATE SCHEMA \(name); CREATE TABLE \(name).events (id int PRIMARY KEY, note text); INSERT INTO \(name).events VALUES (1, 'theirs')")
            let before = try server.psql("SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = '\(name)'")
            for access in [LogAccess.readWriteCreating, .readWrite, .readOnly] {
                do {
                    _ = try PostgresEventLog.open(url: server.url(schema: name), access: access)
                    Issue.record("opened a schema holding someone else's events table")
                } catch {
                    guard case .notALog(_, let reason) = error else {
                        Issue.record("\(error)")
                        continue
                    }
                    #expect(reason.contains("events"))
                }
            }
            #expect(try server.psql("SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = '\(name)'") == before)
            #expect(try server.psql("SELECT id || ':' || note FROM \(name).events") == "1:theirs")
            // A meta table that is not FlowLog's is refused the same way.
            let other = server.freshName("foreign")
            try server.psql("CREATE SCHEMA \(other); CREATE TABLE \(other).meta (key text, value text)")
            #expect(throws: FlowLogError.self) { try PostgresEventLog.open(url: server.url(schema: other), access: .readWriteCreating) }
        }

        @Test func readingCommandsNeverCreateALog() throws {
            let url = server.url()
            #expect(throws: FlowLogError.notFound(path: try PostgresURL(url).redacted)) { try PostgresEventLog.open(url: url, access: .readOnly) }
            #expect(throws: FlowLogError.notFound(path: try PostgresURL(url).redacted)) { try PostgresEventLog.open(url: url, access: .readWrite) }
            #expect(try server.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema(of: url))'") == "0")
            let created = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            #expect(try created.lastPosition() == 0)
            #expect(try server.psql("SELECT value FROM \(schema(of: url)).meta WHERE key = 'schema'") == String(PostgresEventLog.logSchemaVersion))
            let reader = try PostgresEventLog.open(url: url, access: .readOnly)
            #expect(throws: FlowLogError.self) { try reader.append([request("a")]) }
        }

        @Test func connectionFailuresAreNamedWithoutThePassword() throws {
            // Nothing listens on a port that was just free.
            let refusedURL = "postgres://ana:hunter2@127.0.0.1:\(try PostgresServer.freePort())/flowlog_test?connect_timeout=5"
            do {
                _ = try PostgresEventLog.open(url: refusedURL, access: .readWriteCreating)
                Issue.record("connected to nothing")
            } catch {
                guard case .io(let path, let detail) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(detail.contains("connection refused"), "\(detail)")
                #expect(!path.contains("hunter2") && !"\(error)".contains("hunter2"))
            }
            let wrong = server.tcpURL(user: PostgresServer.passwordRole, password: "hunter2")
            do {
                _ = try PostgresEventLog.open(url: wrong, access: .readWriteCreating)
                Issue.record("a wrong password was accepted")
            } catch {
                guard case .permissionDenied = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(!"\(error)".contains("hunter2"), "\(error)")
            }
            let missing = server.tcpURL(user: PostgresServer.passwordRole, password: PostgresServer.password, database: "no_such_db")
            do {
                _ = try PostgresEventLog.open(url: missing, access: .readWriteCreating)
                Issue.record("a missing database was opened")
            } catch {
                guard case .notFound = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(!"\(error)".contains(PostgresServer.password), "\(error)")
            }
            // The right password, from the URL and from PGPASSWORD.
            let right = try PostgresEventLog.open(
                url: server.tcpURL(user: PostgresServer.passwordRole, password: PostgresServer.password), access: .readWriteCreating)
            #expect(try right.lastPosition() == 0)
            let fromEnvironment = try PostgresEventLog.open(
                url: server.tcpURL(user: PostgresServer.passwordRole), access: .readWriteCreating,
                environment: ["PGPASSWORD": PostgresServer.password])
            #expect(try fromEnvironment.lastPosition() == 0)
        }

        @Test func tlsIsUsedWhenRequiredAndVerifiedWithVerifyFull() throws {
            let authority = try #require(server.certificateAuthority, "openssl made no certificates")
            for parameters in ["sslmode=require", "sslmode=verify-full&sslrootcert=\(authority)"] {
                let url = server.tcpURL(user: PostgresServer.passwordRole, password: PostgresServer.password, parameters: parameters)
                    .replacingOccurrences(of: "127.0.0.1", with: parameters.contains("verify-full") ? "localhost" : "127.0.0.1")
                let log = try PostgresEventLog.open(url: url, access: .readWriteCreating)
                let ssl = try log.withSession { session in
                    try session.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").rows[0].decode(Bool.self)
                }
                #expect(ssl, "\(parameters)")
                _ = try log.append([request("a")])
            }
            // Without the CA, the server's certificate cannot be verified.
            let unverified = server.tcpURL(
                user: PostgresServer.passwordRole, password: PostgresServer.password, parameters: "sslmode=verify-full&sslrootcert=/nonexistent.pem"
            )
            .replacingOccurrences(of: "127.0.0.1", with: "localhost")
            #expect(throws: FlowLogError.self) { try PostgresEventLog.open(url: unverified, access: .readWriteCreating) }
            let plain = server.tcpURL(parameters: "sslmode=disable")
            let log = try PostgresEventLog.open(url: plain, access: .readWriteCreating)
            #expect(
                try log.withSession { try $0.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").rows[0].decode(Bool.self) } == false)
        }

        @Test func readModelsAreTablesAnAnalystCanQuery() throws {
            let url = server.url()
            let log = try filledLog(url)
            let storage = StorageProjector(store: log)
            try ProjectionRunner(log: log).catchUp(storage)
            let name = schema(of: url)
            let orders = try server.psql(
                "SELECT order_id || ',' || total || ',' || item_count || ',' || stream || ',' || position FROM \(name).orders ORDER BY position")
            let expected = try storage.orders().map { "\($0.order.orderId),\($0.order.total),\($0.order.itemCount),\($0.stream),\($0.position)" }
            #expect(orders.split(separator: "\n").map(String.init) == expected)
            #expect(expected.count == 2)
            let state = try server.psql("SELECT version || ',' || cart_status || ',' || has_onboarded FROM \(name).stream_states WHERE stream = 's1'")
            #expect(state == "\(try log.version(of: "s1")),open,true")
            #expect(try server.psql("SELECT checkpoint FROM \(name).projections WHERE projector = 'storage'") == String(try log.lastPosition()))
            #expect(
                try server.psql("SELECT count(*) FROM \(name).events WHERE type = 'cart.productAdded' AND (data->>'unitPrice')::int >= 300") == "4")
        }

        @Test func anImportThroughCOPYExportsByteForByteTheSame() throws {
            let source = try filledLog()
            let exported = try export(source)
            let folder = TemporaryDirectory()
            let path = folder.child("export.ndjson")
            try exported.write(toFile: path, atomically: false, encoding: .utf8)
            let descriptor = open(path, O_RDONLY)
            defer { close(descriptor) }
            let target = try PostgresEventLog.open(url: server.url(), access: .readWriteCreating)
            let count = try target.importNDJSON(from: LineReader(fileDescriptor: descriptor), expectedBytes: exported.utf8.count, progress: nil)
            #expect(count == exported.split(separator: "\n").count)
            #expect(try export(target) == exported)
            #expect(try target.checkIntegrity().isIntact)
            #expect(try target.streams().map(\.version) == source.streams().map(\.version))
            for stream in ["s0", "s1", "s2"] { #expect(try target.state(ofStream: stream) == source.state(ofStream: stream)) }
            // Importing it again: the first line's event id is already there, and nothing is written.
            let again = open(path, O_RDONLY)
            defer { close(again) }
            do {
                _ = try target.importNDJSON(from: LineReader(fileDescriptor: again), expectedBytes: 0, progress: nil)
                Issue.record("imported the same events twice")
            } catch {
                guard case .refusedImport(let refusal)? = error as? FlowLogError else {
                    Issue.record("\(error)")
                    return
                }
                #expect(refusal.line == 1)
            }
            #expect(try target.lastPosition() == count)
        }

        /// An import that holds two streams at a time sets the others aside whole and takes them back
        /// when their next event comes: the log reads as the source does, kept rows and snapshots
        /// included, and every stream's version was written from the spill.
        @Test func anImportThatSetsStreamsAsideReadsAsTheSource() throws {
            let source = try filledLog()
            let exported = try export(source)
            let spill = DictionarySpill()
            var options = PostgresEventLog.Options()
            options.importSpill = { spill }
            options.importStreamsHeld = 2
            let target = try PostgresEventLog.open(url: server.url(), access: .readWriteCreating, options: options)
            try target.setSnapshotInterval(2)
            let count = try target.importEvents { sink in
                for (index, event) in try source.events().enumerated() { try sink.add(event, line: index + 1) }
            }
            #expect(count == exported.split(separator: "\n").count)
            #expect(spill.setAsideCount > 0 && spill.takenBack > 0)
            #expect(try export(target) == exported)
            #expect(try target.checkIntegrity().isIntact)
            #expect(try target.streams().map(\.version) == source.streams().map(\.version))
            for stream in ["s0", "s1", "s2"] { #expect(try target.state(ofStream: stream) == source.state(ofStream: stream)) }
        }

        @Test func aLogCopiedBetweenBackendsKeepsPositionsIdsAndTheChain() throws {
            let source = try filledLog()
            let memory = InMemoryEventLog()
            #expect(try LogCopy.copy(from: source, to: memory) == source.lastPosition())
            let back = try PostgresEventLog.open(url: server.url(), access: .readWriteCreating)
            #expect(try LogCopy.copy(from: memory, to: back) == source.lastPosition())
            #expect(try export(back) == export(source))
            #expect(try back.checkIntegrity().isIntact)
            // The records are the same bytes but for what every write of a salted record (log schema 3)
            // draws afresh: its salt, and with it the chain hash (envelope 36 bytes, salt 12, payload, hash 8).
            let records = { (log: PostgresEventLog) in
                try log.withSession { session in
                    try session.query(
                        """
                        SELECT encode(substring(record FROM 1 FOR 36), 'hex') || ' '
                            || encode(substring(record FROM 49 FOR octet_length(record) - 56), 'hex')
                        FROM \(unescaped: log.table("events")) ORDER BY position
                        """
                    ).rows.map { try $0.decode(String.self) }
                }
            }
            #expect(try records(source).allSatisfy { $0.hasPrefix("02") })
            #expect(try records(back) == records(source))
        }

        @Test func aProjectorLeaseHoldsAcrossConnections() throws {
            let url = server.url()
            let first = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            let second = try PostgresEventLog.open(url: url, access: .readWrite)
            var lease: (any ProjectorLease)? = try first.leaseProjector("storage")
            #expect(throws: FlowLogError.busy(ProjectorBusy(projector: "storage", pid: getpid()))) { try second.leaseProjector("storage") }
            _ = try second.leaseProjector("tracker.segment")
            withExtendedLifetime(lease) {}
            lease = nil
            _ = try second.leaseProjector("storage")
        }

        @Test func aFollowerWakesOnNotifyNotOnItsPoll() throws {
            let url = server.url()
            var options = PostgresEventLog.Options()
            options.followPollInterval = 30
            let follower = try PostgresEventLog(url: try PostgresURL(url), access: .readWriteCreating, options: options)
            let writer = try PostgresEventLog.open(url: url, access: .readWrite)
            #expect(try follower.waitForEvents(after: 0, timeout: 0.2) == 0)
            let started = Date()
            let thread = Thread {
                Thread.sleep(forTimeInterval: 0.3)
                _ = try? writer.append([request("a", count: 3)])
            }
            thread.start()
            let last = try follower.waitForEvents(after: 0, timeout: 10)
            #expect(last == 3)
            #expect(Date().timeIntervalSince(started) < 5, "woken by the notification, not by the 30-second poll")
        }

        @Test func aLostConnectionIsOpenedAgainByTheNextCall() throws {
            let name = server.freshName("app")
            let url = server.url() + "&application_name=\(name)"
            let log = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            _ = try log.append([request("a")])
            _ = try log.waitForEvents(after: 5, timeout: 0.05)
            try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
            Thread.sleep(forTimeInterval: 0.3)
            // A follower rides over it; an append is answered, or fails as a whole.
            #expect(try log.waitForEvents(after: 0, timeout: 5) == 1)
            _ = try log.append([request("a")])
            #expect(try log.lastPosition() == 2)
            #expect(try log.checkIntegrity().isIntact)
        }
    }
#endif
