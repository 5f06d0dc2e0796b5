public import Foundation

/// Where a PostgreSQL log lives, as `--db` names it: `postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME?schema=NAME`
/// (or `postgresql://`), in the form libpq reads, so the same text works with `psql`.
///
/// - `host` may be a name, an IPv4 address or `[v6]`; a Unix socket is given by its folder, as
///   `?host=/var/run/postgresql` or percent-encoded in place of the host (`postgres://u@%2Fvar%2Frun%2Fpostgresql/db`).
/// - `schema` (default `flowlog`) is the PostgreSQL schema that holds this log's tables: several logs
///   can share one database. A lower-case SQL identifier of at most 48 characters.
/// - `sslmode`: `disable`, `allow`/`prefer` (TLS when the server offers it, unverified: libpq's default),
///   `require` (TLS, unverified unless `sslrootcert` is given), `verify-ca`, `verify-full` (the chain and
///   the host name). `sslrootcert=FILE` names the CA certificates; `verify-*` otherwise use
///   `~/.postgresql/root.crt` when it exists, else the system's trust store.
/// - `connect_timeout` (seconds, default 10), `application_name`; `user`, `password`, `port`, `dbname`
///   are accepted as parameters too, as libpq does.
///
/// The password comes from the URL, else `PGPASSWORD`, else the password file (`PGPASSFILE`, default
/// `~/.pgpass`, ignored unless only its owner may read it). It never appears in `description`,
/// `redacted` or any message: messages name the log by `redacted`.
///
/// Here rather than in `FlowLogPostgres`, which connects with it: reading the text needs no network,
/// so the embedded build tests and fuzzes it too (`postgres-url`).
public struct PostgresURL: Equatable, Sendable, CustomStringConvertible {
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var user: String
    /// `nil` when none was found anywhere (trust or peer authentication needs none).
    public var password: String?
    /// A host name or address; `nil` for a Unix socket.
    public var host: String?
    /// The folder of the server's Unix socket (`.s.PGSQL.PORT` inside it).
    public var socketFolder: String?
    public var port: Int
    public var database: String
    public var schema: String
    public var sslMode: SSLMode
    public var sslRootCertificate: String?
    public var connectTimeout: Double
    public var applicationName: String
    /// The text that `--db` gave, for telling it apart from a path (`isPostgresURL`).
    public static let schemes = ["postgres://", "postgresql://"]
    public static let defaultSchema = "flowlog"
    /// The longest `connect_timeout`, in seconds: a day.
    public static let longestConnectTimeout = 86_400.0

    /// Whether `--db`'s text names a PostgreSQL log rather than an LMDB folder.
    public static func isPostgresURL(_ text: String) -> Bool {
        schemes.contains { text.lowercased().hasPrefix($0) }
    }

    /// The socket file of a Unix-socket URL.
    public var socketPath: String? { socketFolder.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + ".s.PGSQL.\(port)" } }

    /// The URL without its password (and without `password=`), for every message, log and child command.
    public var redacted: String {
        var text = "postgres://" + Self.percentEncoded(user, allowing: Self.userCharacters) + "@"
        if let host {
            text += host.contains(":") ? "[\(host)]" : host
            text += ":\(port)"
        }
        text += "/" + Self.percentEncoded(database, allowing: Self.userCharacters)
        var query: [String] = []
        if socketFolder != nil {
            query.append("host=" + (socketFolder ?? ""))
            query.append("port=\(port)")
        }
        if schema != Self.defaultSchema { query.append("schema=" + schema) }
        if sslMode != .prefer { query.append("sslmode=" + sslMode.rawValue) }
        if let sslRootCertificate { query.append("sslrootcert=" + sslRootCertificate) }
        return query.isEmpty ? text : text + "?" + query.joined(separator: "&")
    }

    public var description: String { redacted }

    /// Parses `text`. `environment` supplies `PGPASSWORD`, `PGPASSFILE`, `PGUSER`, `HOME` (the process's
    /// own by default). The error names the URL without its password.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(FlowLogError) {
        guard let scheme = Self.schemes.first(where: { text.lowercased().hasPrefix($0) }) else {
            throw .notALog(path: Self.redact(text), reason: "a PostgreSQL log is named by a URL that starts with postgres:// or postgresql://")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var queryText: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var authority = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        }
        var userInfo: Substring?
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
        }
        let invalid = { (why: String) -> FlowLogError in
            .notALog(path: Self.redact(text), reason: why)
        }
        var user: String?
        var password: String?
        if let userInfo {
            if let colon = userInfo.firstIndex(of: ":") {
                user = Self.percentDecoded(userInfo[..<colon])
                password = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            } else {
                user = Self.percentDecoded(userInfo)
            }
        }
        var host: String?
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("its IPv6 host has no closing ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else { throw invalid("its port is not a number") }
                port = number
            }
        } else if !authority.isEmpty {
            if let colon = authority.lastIndex(of: ":") {
                guard let number = Int(authority[authority.index(after: colon)...]) else { throw invalid("its port is not a number") }
                port = number
                host = Self.percentDecoded(authority[..<colon])
            } else {
                host = Self.percentDecoded(authority)
            }
        }
        var database = path.isEmpty ? nil : Self.percentDecoded(path)
        var schema = Self.defaultSchema
        var sslMode = SSLMode.prefer
        var rootCertificate: String?
        var connectTimeout = 10.0
        var applicationName = "flowlog"
        for pair in queryText.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.percentDecoded(parts[0])
            let value = parts.count > 1 ? Self.percentDecoded(parts[1]) : ""
            switch key {
            case "schema": schema = value
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw invalid("sslmode \(value) is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "sslrootcert": rootCertificate = value
            case "host": host = value
            case "port":
                guard let number = Int(value) else { throw invalid("its port is not a number") }
                port = number
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "connect_timeout":
                // At most a day: the connection counts it in nanoseconds, in 64 bits, and `1e10` or
                // `inf` seconds trapped there.
                guard let seconds = Double(value), seconds > 0, seconds <= Self.longestConnectTimeout else {
                    throw invalid("connect_timeout must be a number of seconds, more than 0 and at most \(Int(Self.longestConnectTimeout))")
                }
                connectTimeout = seconds
            case "application_name": applicationName = value
            case "options", "target_session_attrs", "sslcert", "sslkey", "sslcrl", "sslcompression", "keepalives", "gssencmode",
                "fallback_application_name", "client_encoding":
                continue
            default:
                throw invalid(
                    "it has a parameter FlowLog does not know (\(key)); use schema, sslmode, sslrootcert, host, port, user, dbname, connect_timeout or application_name"
                )
            }
        }
        guard Self.isValidSchema(schema) else {
            throw invalid(
                "its schema \"\(schema)\" is not a lower-case identifier of 1 to 48 letters, digits and underscores starting with a letter or underscore"
            )
        }
        if let chosen = port, !(1...65_535).contains(chosen) { throw invalid("its port \(chosen) is outside 1…65535") }
        self.port = port ?? 5432
        if let host, host.hasPrefix("/") {
            socketFolder = host
            self.host = nil
        } else {
            socketFolder = nil
            self.host = host?.isEmpty == false ? host : "localhost"
        }
        let resolvedUser = user.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        self.user = resolvedUser
        self.database = database.flatMap { $0.isEmpty ? nil : $0 } ?? resolvedUser
        self.schema = schema
        self.sslMode = sslMode
        sslRootCertificate = rootCertificate
        self.connectTimeout = connectTimeout
        self.applicationName = applicationName
        self.password =
            password ?? environment["PGPASSWORD"]
            ?? PasswordFile.lookup(
                host: socketFolder ?? self.host ?? "localhost", isSocket: socketFolder != nil, port: self.port,
                database: self.database, user: resolvedUser, environment: environment)
    }

    package static func isValidSchema(_ name: String) -> Bool {
        guard (1...48).contains(name.utf8.count), let first = name.utf8.first,
            first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        return name.utf8.allSatisfy {
            $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
    }

    /// `text` with any password removed, for messages about a URL that could not be parsed.
    public static func redact(_ text: String) -> String {
        var result = text
        // user:password@ in the authority
        if let schemeEnd = result.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = result[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? result.endIndex
            if let at = result[authorityStart..<authorityEnd].lastIndex(of: "@"),
                let colon = result[authorityStart..<at].firstIndex(of: ":")
            {
                result.replaceSubrange(colon..<at, with: "")
            }
        }
        // password=… among the parameters, which start at the first `?` after the scheme (one
        // before it is no query: `?postgres://…?password=x` kept its password)
        let queryFrom = result.range(of: "://")?.upperBound ?? result.startIndex
        if let mark = result[queryFrom...].firstIndex(of: "?") {
            let parameters = result[result.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false)
                .filter { !$0.lowercased().hasPrefix("password=") }
            result = String(result[...mark]) + parameters.joined(separator: "&")
            if result.hasSuffix("?") { result.removeLast() }
        }
        return result
    }

    private static let userCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    private static func percentEncoded(_ text: String, allowing allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func percentDecoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}

/// libpq's password file: lines `hostname:port:database:username:password`, `*` matching anything,
/// `\:` and `\\` escaping; ignored (as libpq does) when its group or others may read it.
enum PasswordFile {
    static func lookup(
        host: String, isSocket: Bool, port: Int, database: String, user: String,
        environment: [String: String]
    ) -> String? {
        let path = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
        guard let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 == 0,
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        let hosts = isSocket ? [host, "localhost"] : [host]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = split(line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], hosts), matches(fields[1], [String(port)]), matches(fields[2], [database]), matches(fields[3], [user]) {
                return fields[4]
            }
        }
        return nil
    }

    /// Splits a line at unescaped colons, resolving `\:` and `\\`.
    static func split(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
