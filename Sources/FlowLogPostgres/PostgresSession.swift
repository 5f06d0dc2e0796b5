#if Network
    import FlowLogBasics
    import Foundation
    import Logging
    import PostgresNIO
    import Synchronization

    /// The event loops every PostgreSQL connection of the process runs on: one small group, started by
    /// the first log that opens and shut down when the last one closes (so a command that is done with
    /// its log leaves no thread behind, and a test process does not keep one per log).
    final class EventLoopRuntime: Sendable {
        static let shared = EventLoopRuntime()

        private struct Users {
            var group: MultiThreadedEventLoopGroup?
            var count = 0
        }

        private let users = Mutex(Users())

        func acquire() -> MultiThreadedEventLoopGroup {
            users.withLock { users in
                users.count += 1
                if let group = users.group { return group }
                let started = MultiThreadedEventLoopGroup(numberOfThreads: 1)
                users.group = started
                return started
            }
        }

        /// The last user's release shuts the group down, after the lock is let go.
        func release() {
            let finished = users.withLock { users -> MultiThreadedEventLoopGroup? in
                users.count -= 1
                guard users.count == 0 else { return nil }
                let group = users.group
                users.group = nil
                return group
            }
            guard let finished else { return }
            if MultiThreadedEventLoopGroup.currentEventLoop == nil {
                try? finished.syncShutdownGracefully()
            } else {
                finished.shutdownGracefully { _ in }
            }
        }
    }

    /// postgres-nio writes nothing of its own to FlowLog's standard output or error.
    let quietLogger = Logger(label: "flowlog.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    struct TimedOut: Error {}

    /// Waits for `future` on the calling thread, at most `timeout` seconds. Never on an event loop: the
    /// answer would have to be read by the very thread that waits for it.
    func blockingWait<Value: Sendable>(_ future: EventLoopFuture<Value>, timeout: Double?) throws -> Value {
        precondition(MultiThreadedEventLoopGroup.currentEventLoop == nil, "a blocking PostgreSQL call was made on a NIO event loop")
        guard let timeout else { return try future.wait() }
        let promise = future.eventLoop.makePromise(of: Value.self)
        let deadline = future.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) { promise.fail(TimedOut()) }
        future.whenComplete { result in
            deadline.cancel()
            promise.completeWith(result)
        }
        return try promise.futureResult.wait()
    }

    /// Runs a task's jobs on a NIO event loop.
    final class EventLoopTaskExecutor: TaskExecutor {
        let eventLoop: any EventLoop
        init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Starts the work that `make` returns on `eventLoop` itself, with its deadline, and waits for it on
    /// the calling thread: one hop onto the event loop per call, rather than one for the work, one for the
    /// timer and one for each callback registered from outside it.
    func blockingRun<Value: Sendable>(on eventLoop: any EventLoop, timeout: Double, _ make: @escaping @Sendable () -> EventLoopFuture<Value>) throws
        -> Value
    {
        precondition(MultiThreadedEventLoopGroup.currentEventLoop == nil, "a blocking PostgreSQL call was made on a NIO event loop")
        let promise = eventLoop.makePromise(of: Value.self)
        eventLoop.execute {
            let future = make()
            let deadline = eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) { promise.fail(TimedOut()) }
            future.whenComplete { result in
                deadline.cancel()
                promise.completeWith(result)
            }
        }
        return try promise.futureResult.wait()
    }

    /// What the detached task leaves for the waiting thread, set before it signals.
    private final class ResultBox<Value: Sendable>: Sendable {
        let result = Mutex<Result<Value, any Error>?>(nil)
    }

    /// Runs async-only postgres-nio work (COPY) from a plain thread and waits for it, at most `timeout`
    /// seconds; `onTimeout` must make the work end (closing its connection does).
    @available(*, noasync, message: "blocks the calling thread")
    func blockingAwait<Value: Sendable>(
        on executor: EventLoopTaskExecutor, timeout: Double, onTimeout: () -> Void,
        _ operation: @escaping @Sendable () async throws -> Value
    ) throws -> Value {
        precondition(MultiThreadedEventLoopGroup.currentEventLoop == nil, "a blocking PostgreSQL call was made on a NIO event loop")
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<Value>()
        // On an event loop, not the cooperative pool: the caller may itself be a pool thread (a test, a
        // server handler calling the synchronous core), and with every pool thread blocked in a wait like
        // this one, work queued on the pool would never run.
        Task.detached(executorPreference: executor) {
            let result: Result<Value, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            box.result.withLock { $0 = result }
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            onTimeout()
            done.wait()
            throw TimedOut()
        }
        return try box.result.withLock { $0 }!.get()
    }

    /// One connection to the server, used from one thread at a time (its owner serialises), with every
    /// wait bounded: a server that stops answering fails the call with `.io` instead of hanging the command.
    /// Not `Sendable`: its owner (a log, a lease) is what threads share.
    final class PostgresSession {
        let url: PostgresURL
        let timeout: Double
        private let group: MultiThreadedEventLoopGroup
        private(set) var connection: PostgresConnection?
        private var closed = false
        /// Called on the event loop for each notification on a channel this session listens to.
        private var listeners: [(channel: String, handler: @Sendable (String) -> Void)] = []
        /// Server settings every connection of this session starts with (`set(_:to:)`).
        private var settings: [(String, String)] = []

        init(url: PostgresURL, timeout: Double) {
            self.url = url
            self.timeout = timeout
            group = EventLoopRuntime.shared.acquire()
        }

        deinit {
            close()
        }

        func close() {
            guard !closed else { return }
            closed = true
            if let connection, !connection.isClosed {
                _ = try? blockingWait(connection.close(), timeout: 2)
            }
            connection = nil
            EventLoopRuntime.shared.release()
        }

        /// Sets a server setting (a GUC such as `idle_session_timeout`) for this session's connection
        /// now and for every connection it opens again after one was lost.
        func set(_ name: String, to value: String) throws {
            settings.removeAll { $0.0 == name }
            settings.append((name, value))
            if let connection, !connection.isClosed { try query("SELECT set_config(\(name), \(value), false)") }
        }

        /// The connection, opened (again) when there is none or the last one was lost.
        func open() throws(FlowLogError) -> PostgresConnection {
            if let connection, !connection.isClosed { return connection }
            guard !closed else { throw .io(path: url.redacted, detail: "the log was closed, and cannot be used any more") }
            connection = nil
            let configuration: PostgresConnection.Configuration
            do {
                configuration = try makeConfiguration()
            } catch {
                throw PostgresErrors.map(error, url: url, during: "setting up TLS")
            }
            do {
                let opened = try blockingWait(
                    PostgresConnection.connect(on: group.next(), configuration: configuration, id: 1, logger: quietLogger),
                    timeout: url.connectTimeout + 1)
                connection = opened
                for listener in listeners { try listen(opened, listener.channel, listener.handler) }
                return opened
            } catch let error as FlowLogError {
                throw error
            } catch {
                throw PostgresErrors.map(error, url: url, during: "connecting")
            }
        }

        private func makeConfiguration() throws -> PostgresConnection.Configuration {
            var configuration: PostgresConnection.Configuration
            if let socket = url.socketPath {
                configuration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
            } else {
                configuration = .init(
                    host: url.host ?? "localhost", port: url.port, username: url.user, password: url.password,
                    database: url.database, tls: try tls())
            }
            configuration.options.connectTimeout = .nanoseconds(Int64(url.connectTimeout * 1e9))
            configuration.options.additionalStartupParameters = [("application_name", url.applicationName)] + settings
            return configuration
        }

        private func tls() throws -> PostgresConnection.Configuration.TLS {
            var tls = TLSConfiguration.makeClientConfiguration()
            let roots = url.sslRootCertificate ?? ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.postgresql/root.crt" }
            let rootsExist = roots.map { FileManager.default.fileExists(atPath: $0) } ?? false
            switch url.sslMode {
            case .disable:
                return .disable
            case .allow, .prefer:
                tls.certificateVerification = .none
                return .prefer(try NIOSSLContext(configuration: tls))
            case .require:
                // libpq: with a root certificate given, `require` verifies the chain as verify-ca does.
                if url.sslRootCertificate != nil, let roots {
                    tls.trustRoots = .file(roots)
                    tls.certificateVerification = .noHostnameVerification
                } else {
                    tls.certificateVerification = .none
                }
                return .require(try NIOSSLContext(configuration: tls))
            case .verifyCA, .verifyFull:
                if rootsExist, let roots { tls.trustRoots = .file(roots) }
                tls.certificateVerification = url.sslMode == .verifyFull ? .fullVerification : .noHostnameVerification
                return .require(try NIOSSLContext(configuration: tls))
            }
        }

        /// Runs one statement and returns its rows. A lost connection or a timeout leaves the session
        /// without a connection (the next call opens a new one) and throws `.io`.
        @discardableResult
        func query(_ query: PostgresQuery, timeout: Double? = nil) throws(FlowLogError) -> PostgresQueryResult {
            let connection = try open()
            do {
                return try blockingRun(on: connection.eventLoop, timeout: timeout ?? self.timeout) { connection.query(query, logger: quietLogger) }
            } catch {
                let mapped = PostgresErrors.map(error, url: url, during: "running a query")
                if error is TimedOut || connection.isClosed || PostgresErrors.isConnectionLoss(error) { drop(connection) }
                throw mapped
            }
        }

        /// Sends several statements without waiting between them, then waits for all: one wait instead of
        /// one per statement. The first error is thrown (the statements after it fail too inside a transaction).
        func queries(_ queries: [PostgresQuery], during activity: String = "running a query") throws(FlowLogError) -> [PostgresQueryResult] {
            try finish(send(queries), during: activity)
        }

        /// Statements on their way: their answers arrive on the event loop while the caller does other work.
        struct Sent {
            let connection: PostgresConnection
            let answers: EventLoopFuture<[Result<PostgresQueryResult, any Error>]>
        }

        /// Sends the statements and returns at once; `finish` waits for their answers. The deadline
        /// (`timeout`) runs from now. Statements sent later on this connection run after these.
        func send(_ queries: [PostgresQuery]) throws(FlowLogError) -> Sent {
            let connection = try open()
            let eventLoop = connection.eventLoop
            let promise = eventLoop.makePromise(of: [Result<PostgresQueryResult, any Error>].self)
            let timeout = self.timeout
            eventLoop.execute {
                let future = EventLoopFuture.whenAllComplete(queries.map { connection.query($0, logger: quietLogger) }, on: eventLoop)
                let deadline = eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) { promise.fail(TimedOut()) }
                future.whenComplete { result in
                    deadline.cancel()
                    promise.completeWith(result)
                }
            }
            return Sent(connection: connection, answers: promise.futureResult)
        }

        /// Waits for the answers of `sent`; a lost connection or a timeout leaves the session without one.
        func finish(_ sent: Sent, during activity: String) throws(FlowLogError) -> [PostgresQueryResult] {
            precondition(MultiThreadedEventLoopGroup.currentEventLoop == nil, "a blocking PostgreSQL call was made on a NIO event loop")
            do {
                return try sent.answers.wait().map { try $0.get() }
            } catch {
                let mapped = PostgresErrors.map(error, url: url, during: activity)
                if error is TimedOut || sent.connection.isClosed || PostgresErrors.isConnectionLoss(error) { drop(sent.connection) }
                throw mapped
            }
        }

        /// Closes a connection whose state is unknown (a timeout, a lost answer), so that nothing more is
        /// sent on it; the next call connects again.
        func drop(_ connection: PostgresConnection) {
            if !connection.isClosed { _ = try? blockingWait(connection.close(), timeout: 2) }
            if self.connection === connection { self.connection = nil }
        }

        /// Runs async-only work on the connection (COPY), bounded by `timeout` seconds.
        @available(*, noasync)
        func withAsyncConnection<Value: Sendable>(timeout: Double, _ body: @escaping @Sendable (PostgresConnection) async throws -> Value)
            throws(FlowLogError) -> Value
        {
            let connection = try open()
            do {
                return try blockingAwait(
                    on: EventLoopTaskExecutor(connection.eventLoop), timeout: timeout,
                    onTimeout: { [connection] in let _: EventLoopFuture<Void> = connection.close() }
                ) { try await body(connection) }
            } catch {
                let mapped = PostgresErrors.map(error, url: url, during: "copying rows")
                if error is TimedOut || connection.isClosed || PostgresErrors.isConnectionLoss(error) { drop(connection) }
                throw mapped
            }
        }

        /// Listens to `channel` on this session's connection, now and after every reconnection.
        func addListener(channel: String, _ handler: @escaping @Sendable (String) -> Void) throws(FlowLogError) {
            listeners.append((channel, handler))
            let connection = try open()
            do {
                try listen(connection, channel, handler)
            } catch {
                listeners.removeLast()
                throw error
            }
        }

        private func listen(_ connection: PostgresConnection, _ channel: String, _ handler: @escaping @Sendable (String) -> Void) throws(FlowLogError)
        {
            connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
            do {
                _ = try blockingWait(connection.query(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""), logger: quietLogger), timeout: timeout)
            } catch {
                throw PostgresErrors.map(error, url: url, during: "listening for new events")
            }
        }
    }
#endif
