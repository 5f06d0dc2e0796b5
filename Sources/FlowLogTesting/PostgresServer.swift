import FlowLogSystem
import Foundation
import Synchronization

/// A throwaway PostgreSQL server for the tests of one test process: Debian's binaries (installed by
/// `scripts/ensure-deps postgres` when they are missing), `initdb` into a temporary folder, trust
/// authentication on a Unix socket in that folder and on a free loopback port, run as the `postgres`
/// user when the tests run as root (PostgreSQL refuses to run as root). It is started on first use,
/// stopped and removed when the process exits (and by a watchdog if the process dies without exiting).
///
/// Each test takes a fresh schema (`url(schema:)`, one log each) or a fresh database (`createDatabase()`).
/// For the password tests, role `flowlog_pw` (password `flowlog-secret`) must use a password over TCP;
/// every other role is trusted.
public final class PostgresServer: Sendable {
    public let folder: String
    public let port: Int
    public let binaries: String
    /// The folder holding the server's Unix socket (`.s.PGSQL.PORT`).
    public var socketFolder: String { folder }
    public static let passwordRole = "flowlog_pw"
    public static let password = "flowlog-secret"
    /// The database every test schema lives in.
    public static let database = "flowlog_test"
    /// The CA certificate that signed the server's certificate (for `sslmode=verify-full`), when openssl was at hand.
    public let certificateAuthority: String?

    /// The process's server, started on first use.
    public static var shared: PostgresServer {
        sharedServer
    }

    private static let sharedServer: PostgresServer = {
        do {
            let server = try PostgresServer()
            atexit { PostgresServer.stopShared() }
            return server
        } catch {
            fatalError("Cannot start the throwaway PostgreSQL server for the tests: \(error)")
        }
    }()

    /// Whether the shared server was stopped; held while it stops, so a second call waits for the first.
    private static let stopped = Mutex(false)

    private static func stopShared() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            sharedServer.stop()
        }
    }

    private let runAsPostgres: Bool
    /// The last number `freshName` used.
    private let named = Mutex(0)

    /// A server of the caller's own (most tests share `shared`): for a test that restarts or stops
    /// it, which would cut every other test's connections. The caller stops it.
    public init() throws {
        binaries = try Self.findBinaries()
        runAsPostgres = getuid() == 0
        folder = "/tmp/flowlog-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if runAsPostgres {
            try Self.run("/bin/chown", ["postgres:postgres", folder])
        }
        try Self.run("/bin/chmod", ["0700", folder])
        port = try Self.freePort()
        let data = folder + "/data"
        let runAsPostgres = self.runAsPostgres
        try Self.runAsServerUser(
            binaries + "/initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"],
            runAsPostgres: runAsPostgres)
        certificateAuthority = try? Self.makeCertificates(in: data, folder: folder, runAsPostgres: runAsPostgres)
        var settings = """

            listen_addresses = '127.0.0.1'
            port = \(port)
            unix_socket_directories = '\(folder)'
            max_connections = 300
            fsync = off
            full_page_writes = off
            shared_buffers = 64MB
            log_min_messages = fatal
            password_encryption = 'scram-sha-256'

            """
        if certificateAuthority != nil {
            settings += "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n"
        }
        try Self.append(settings, to: data + "/postgresql.conf", runAsPostgres: runAsPostgres)
        try Self.append(
            "local all all trust\nhost all \(Self.passwordRole) 127.0.0.1/32 scram-sha-256\nhost all all 127.0.0.1/32 trust\n",
            to: data + "/pg_hba.conf", replacing: true, runAsPostgres: runAsPostgres)
        try runAsServerUser(binaries + "/pg_ctl", ["-D", data, "-l", folder + "/server.log", "-w", "-t", "60", "start"])
        startWatchdog()
        try psql("CREATE DATABASE \(Self.database)", database: "postgres")
        try psql("CREATE ROLE \(Self.passwordRole) LOGIN SUPERUSER PASSWORD '\(Self.password)'", database: "postgres")
    }

    /// A URL of a fresh schema in the test database, over the Unix socket (trust).
    public func url(schema: String? = nil, database: String = PostgresServer.database) -> String {
        "postgres://postgres@/\(database)?host=\(folder)&port=\(port)&schema=\(schema ?? freshName("log"))"
    }

    /// A URL over TCP on the loopback address, as `user` (with `password`, if any).
    public func tcpURL(
        user: String = "postgres", password: String? = nil, database: String = PostgresServer.database,
        schema: String? = nil, parameters: String = ""
    ) -> String {
        let credentials = password.map { "\(user):\($0)" } ?? user
        return
            "postgres://\(credentials)@127.0.0.1:\(port)/\(database)?schema=\(schema ?? freshName("log"))\(parameters.isEmpty ? "" : "&" + parameters)"
    }

    /// A name no other test of this process used.
    public func freshName(_ prefix: String) -> String {
        let next = named.withLock { named in
            named += 1
            return named
        }
        return "\(prefix)_\(next)_\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Creates a new database and returns its name.
    public func createDatabase() throws -> String {
        let name = freshName("db")
        try psql("CREATE DATABASE \(name)", database: "postgres")
        return name
    }

    /// Runs a dump (`pg_dump`'s SQL, such as a fixture's `postgres.sql`) through `psql`, stopping at
    /// its first error; true when all of it ran.
    public func load(dump: String, database: String = PostgresServer.database) throws -> Bool {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: binaries + "/psql")
        psql.arguments = ["-q", "-v", "ON_ERROR_STOP=1", "-h", socketFolder, "-p", String(port), "-U", "postgres", "-d", database, "-f", "-"]
        let input = Pipe()
        psql.standardInput = input
        psql.standardOutput = FileHandle.nullDevice
        try psql.run()
        input.fileHandleForWriting.write(Data(dump.utf8))
        try input.fileHandleForWriting.close()
        psql.waitUntilExit()
        return psql.terminationStatus == 0
    }

    /// Runs SQL with psql as the superuser over the socket; returns what it printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = PostgresServer.database) throws -> String {
        try Self.run(
            binaries + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", folder, "-p", String(port),
                "-U", "postgres", "-d", database, "-c", sql,
            ])
    }

    /// Stops the server at once and removes its folder.
    public func stop() {
        _ = try? runAsServerUser(binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Restarts the server (every connection is cut), for the tests of lost connections.
    public func restart() throws {
        try runAsServerUser(binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "-t", "60", "restart", "-l", folder + "/server.log"])
    }

    // MARK: Set-up

    private static func findBinaries() throws -> String {
        if let found = installedBinaries() { return found }
        // Install Debian's package with the project's own script, then look again.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/ensure-deps").path
        try run("/bin/bash", [script, "postgres"])
        guard let found = installedBinaries() else {
            throw Failure("scripts/ensure-deps postgres ran, but no /usr/lib/postgresql/*/bin/initdb is there")
        }
        return found
    }

    private static func installedBinaries() -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// A loopback TCP port nothing listens on now (bound, read back and closed again).
    public static func freePort() throws -> Int {
        let socket = FlowLogSystem.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure("no socket for finding a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure("cannot bind a loopback port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A CA and a server certificate for localhost and 127.0.0.1, so TLS tests can verify the server.
    private static func makeCertificates(in data: String, folder: String, runAsPostgres: Bool) throws -> String {
        let openssl = ["/usr/bin/openssl", "/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let openssl else { throw Failure("no openssl") }
        let ca = folder + "/ca"
        try run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=FlowLog test CA",
                "-keyout", ca + ".key", "-out", ca + ".crt",
            ])
        try run(
            openssl,
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                "-keyout", data + "/server.key", "-out", folder + "/server.csr",
            ])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: folder + "/san.ext", atomically: true, encoding: .utf8)
        try run(
            openssl,
            [
                "x509", "-req", "-in", folder + "/server.csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                "-CAcreateserial", "-days", "2", "-extfile", folder + "/san.ext", "-out", data + "/server.crt",
            ])
        try run("/bin/chmod", ["0600", data + "/server.key"])
        if runAsPostgres {
            try run("/bin/chown", ["postgres:postgres", data + "/server.key", data + "/server.crt"])
        }
        return ca + ".crt"
    }

    private static func append(_ text: String, to path: String, replacing: Bool = false, runAsPostgres: Bool) throws {
        if replacing {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        } else {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
        if runAsPostgres { try run("/bin/chown", ["postgres:postgres", path]) }
    }

    /// Stops the server and removes its folder once this process is gone, however it ended.
    private func startWatchdog() {
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            \(runAsPostgres ? "runuser -u postgres -- " : "")\(binaries)/pg_ctl -D \(folder)/data -m immediate stop >/dev/null 2>&1
            rm -rf \(folder)
            """
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0) }
        Self.closeInherited(&actions)
        let words: [String] = ["/usr/bin/setsid", "/bin/sh", "-c", script]
        let argv = words.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        _ = posix_spawn(&pid, "/usr/bin/setsid", &actions, nil, argv, environ)
    }

    @discardableResult
    private func runAsServerUser(_ executable: String, _ arguments: [String]) throws -> String {
        try Self.runAsServerUser(executable, arguments, runAsPostgres: runAsPostgres)
    }

    @discardableResult
    private static func runAsServerUser(_ executable: String, _ arguments: [String], runAsPostgres: Bool) throws -> String {
        if runAsPostgres {
            return try run("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
        }
        return try run(executable, arguments)
    }

    /// Runs a program to its end (`posix_spawn` and `waitpid`); its output goes through files. Not
    /// Foundation's `Process`: a daemon the program leaves behind (`pg_ctl start`'s server) inherits
    /// what `Process` watches for the child's end, and `waitUntilExit` then waits for the daemon.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let base = NSTemporaryDirectory() + "flowlog-pg-run-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        defer {
            unlink(base + ".out")
            unlink(base + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        closeInherited(&actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure("cannot run \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exited == 0 else {
            let errors = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
            throw Failure("\(executable) \(arguments.joined(separator: " ")) exited \(exited): \(errors)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Closes, in the child, every descriptor above 2 this process has open, so no daemon it starts
    /// keeps one of the test runner's pipes open.
    private static func closeInherited(_ actions: inout posix_spawn_file_actions_t) {
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init)
        for descriptor in open where descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
