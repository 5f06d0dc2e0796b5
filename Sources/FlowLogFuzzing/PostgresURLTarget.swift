import FlowLog

/// The PostgreSQL URL of `--db postgres://…` (`PostgresURL`): the input is the URL's text, read
/// with an empty environment (no password file is looked for). It is read or refused with an
/// error, never trapped on; a URL read holds what its documentation promises (a port of 1 to 65535,
/// a valid schema, a positive timeout, a host or a socket folder); its redacted form, which every
/// message shows, is made without trapping and reads back with no password.
enum PostgresURLTarget {
    static let target = FuzzTarget(
        name: "postgres-url",
        checks: "a PostgreSQL URL: read or refused, never a trap; a URL read has a port of 1-65535, a valid schema, a positive timeout and a host or socket; its redacted form holds no password parameter",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = PostgresURL.isPostgresURL(text)
        let redacted = PostgresURL.redact(text)
        fuzzCheck(!redacted.lowercased().contains("?password=") && !redacted.lowercased().contains("&password="),
                  "\(text) redacted as \(redacted)")
        let url: PostgresURL
        do throws(FlowLogError) {
            url = try PostgresURL(text, environment: [:])
        } catch {
            _ = error.description
            return
        }
        fuzzCheck((1...65_535).contains(url.port), "\(text) gave the port \(url.port)")
        fuzzCheck(PostgresURL.isValidSchema(url.schema), "\(text) gave the schema \(url.schema)")
        // The connection counts the timeout in nanoseconds, in 64 bits.
        fuzzCheck(url.connectTimeout > 0 && Int64(exactly: ((url.connectTimeout + 1) * 1e9).rounded(.down)) != nil,
                  "\(text) gave the timeout \(url.connectTimeout)")
        fuzzCheck((url.host == nil) != (url.socketFolder == nil), "\(text) gave the host \(String(describing: url.host)) and the socket \(String(describing: url.socketFolder))")
        // The redacted form carries no password into anything that reads it (a host may hold any text).
        fuzzCheck((try? PostgresURL(url.redacted, environment: [:]))?.password == nil, "\(text) gave the redacted form \(url.redacted)")
        _ = url.socketPath
        _ = try? PostgresURL(url.redacted, environment: [:])
    }
}
