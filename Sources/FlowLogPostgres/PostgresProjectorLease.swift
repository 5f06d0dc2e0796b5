#if Network
    import FlowLogBasics
    public import FlowLogStore
    import Foundation
    import PostgresNIO

    /// One projector, one runner, across machines: `pg_try_advisory_lock` on a connection the lease
    /// owns. The server drops the lock when that session ends, however the process ends, so no stale
    /// lease is ever left; `leases` records the holder's pid and host for the next runner's message.
    ///
    /// With a timeout (`projections run --follow --lease-timeout`, log schema 5), the lease also ends
    /// when its holder stops renewing it: its session is given `idle_session_timeout`, and a thread of
    /// the lease's own renews it every third of the timeout, so the server itself ends the session of
    /// a holder paused (SIGSTOP) or cut off, and a standby's next try takes the lock. Each take raises
    /// the lease's `generation`; the holder's checkpoint writes carry it (`PostgresEventLog.fences`),
    /// and a write whose generation has moved on is refused inside its transaction, so a holder that
    /// resumes moves nothing. Its other sessions get `idle_in_transaction_session_timeout`, so a
    /// transaction it was paused in is rolled back by the server and holds no row the standby needs.
    public final class PostgresProjectorLease: ProjectorLease {
        public let projector: String
        private let log: PostgresEventLog
        private let session: PostgresSession
        private let key: Int64
        private let timeout: Double?
        /// Whether the lease is still this process's, and when it was last renewed (monotonic).
        private let state: ConditionBox<(lost: Bool, renewed: Double)>
        /// Wakes the renewing thread early, to stop.
        private let stopping = ConditionBox(false)
        private let renewer = WorkerThread()
        private var held = false

        init(projector: String, log: PostgresEventLog, timeout: Double?) throws {
            self.projector = projector
            self.log = log
            key = log.schema.leaseLock(projector)
            session = PostgresSession(url: log.url, timeout: log.options.operationTimeout)
            state = ConditionBox((false, MonotonicClock.seconds()))
            let leases = log.schema.table("leases")
            do {
                let taken = try session.query("SELECT pg_try_advisory_lock(\(key))").rows[0].decode(Bool.self)
                guard taken else {
                    let holder = try session.query("SELECT pid FROM \(unescaped: leases) WHERE projector = \(projector)").rows.first
                        .map { try $0.decode(Int32.self) }
                    session.close()
                    throw FlowLogError.busy(ProjectorBusy(projector: projector, pid: holder))
                }
                held = true
                let expires = try timeout.map { _ in try Self.expires(log) } ?? false
                self.timeout = expires ? timeout : nil
                if let timeout = self.timeout {
                    let generation = try session.query(
                        """
                        INSERT INTO \(unescaped: leases) (projector, pid, host, since, generation, renewed)
                        VALUES (\(projector), \(Int32(getpid())), \(ProcessInfo.processInfo.hostName), now(), 1, now())
                        ON CONFLICT (projector) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, since = EXCLUDED.since,
                            generation = \(unescaped: leases).generation + 1, renewed = EXCLUDED.renewed
                        RETURNING generation
                        """
                    ).rows[0].decode(Int64.self)
                    let milliseconds = String(Int((timeout * 1000).rounded()))
                    try session.set("idle_session_timeout", to: milliseconds)
                    try log.fence(projector, generation: generation, idleTransactionTimeout: milliseconds)
                    startRenewing(expiringAfter: timeout, generation: generation)
                } else {
                    try session.query(
                        """
                        INSERT INTO \(unescaped: leases) (projector, pid, host, since) VALUES (\(projector), \(Int32(getpid())), \(ProcessInfo.processInfo.hostName), now())
                        ON CONFLICT (projector) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, since = EXCLUDED.since
                        """)
                }
            } catch let error as FlowLogError {
                session.close()
                throw error
            } catch {
                session.close()
                throw PostgresErrors.map(error, url: log.url, during: "taking the projector's lease")
            }
        }

        /// Whether the log's leases can expire: its schema (5 on) has their generation.
        private static func expires(_ log: PostgresEventLog) throws -> Bool {
            try log.settings().logSchema >= RecordLayout.tracedLogSchema
        }

        public var holds: Bool {
            guard let timeout else { return true }
            return state.withLock { !$0.lost && MonotonicClock.seconds() - $0.renewed < timeout }
        }

        /// Renews the lease every third of its `timeout` on its own session, until stopped or until a
        /// renewal fails or finds the generation moved on (then the lease is lost for good).
        ///
        /// A renewal waits for its answer at most the lease's timeout, not the log's operation
        /// timeout: one answered later could not keep the lease anyway, and whoever drops the lease
        /// waits for this thread, so a runner resumed after a pause, whose renewal may never be
        /// answered (its row locked, its connection ended under it), still stops within seconds.
        private func startRenewing(expiringAfter timeout: Double, generation: Int64) {
            let table = log.schema.table("leases")
            let interval = timeout / 3
            let (state, stopping, projector) = (state, stopping, projector)
            // Handed to the renewing thread, which uses it while the lease lives; `deinit` uses it
            // only after that thread has stopped, so never two threads at once.
            nonisolated(unsafe) let session = session
            renewer.start(name: "flowlog-lease") {
                while !stopping.withLock(waitingUntil: { $0 }, deadline: Date().addingTimeInterval(interval), { $0 }) {
                    let renewed = try? session.query(
                        "UPDATE \(unescaped: table) SET renewed = now() WHERE projector = \(projector) AND generation = \(generation) RETURNING 1",
                        timeout: timeout
                    ).rows.count
                    guard renewed == 1 else {
                        state.withLock { $0.lost = true }
                        return
                    }
                    state.withLock { $0.renewed = MonotonicClock.seconds() }
                }
            }
        }

        /// Unlocks before closing, so the next runner finds the lease free the moment this one is gone
        /// (a closed connection's locks are dropped only when its server process has ended). A lease
        /// found lost has no lock left to give back: its session was ended by the server.
        deinit {
            stopping.withLock {
                $0 = true
                stopping.broadcast()
            }
            renewer.stop()
            if timeout != nil { log.unfence(projector) }
            let lost = state.withLock { $0.lost }
            if held && !lost { _ = try? session.query("SELECT pg_advisory_unlock(\(key))", timeout: timeout) }
            session.close()
        }
    }
#endif
