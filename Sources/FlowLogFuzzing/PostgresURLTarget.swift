import FlowLogBasics

/// The PostgreSQL URL of `--db postgres://…` (`PostgresURL`): the input is the URL's text, read
/// with an empty environment (no password file is looked for). It is read or refused with an
/// error, never trapped on; a URL read holds what its documentation promises (a port of 1 to 65535,
/// a valid schema, a positive timeout, a host or a socket folder); its redacted forms, which every
/// message shows, are made without trapping and hold no password.
enum PostgresURLTarget {
    static let target = FuzzTarget(
        name: "postgres-url",
        checks:
            "a PostgreSQL URL: read or refused, never a trap; a URL read has a port of 1-65535, a valid schema, a positive timeout and a host or socket; its redacted form holds no password parameter",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = PostgresURL.isPostgresURL(text)
        let redacted = PostgresURL.redact(text)
        let afterScheme = redacted.range(of: "://").map { redacted[$0.upperBound...] } ?? redacted[...]
        let parameters =
            afterScheme.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first?.split(separator: "&") ?? []
        fuzzCheck(!parameters.contains { $0.lowercased().hasPrefix("password=") }, "\(text) redacted as \(redacted)")
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
        fuzzCheck(
            url.connectTimeout > 0 && Int64(exactly: ((url.connectTimeout + 1) * 1e9).rounded(.down)) != nil,
            "\(text) gave the timeout \(url.connectTimeout)")
        fuzzCheck(
            (url.host == nil) != (url.socketFolder == nil),
            "\(text) gave the host \(String(describing: url.host)) and the socket \(String(describing: url.socketFolder))")
        // The redacted form writes no `user:password@`. (It writes a host or socket folder as given,
        // so a host holding `&password=` text shows it: that is the host, not a password.)
        fuzzCheck(!PostgresURLTarget.userSegment(url).contains(":"), "\(text) gave the redacted form \(url.redacted)")
        _ = url.socketPath
        _ = try? PostgresURL(url.redacted, environment: [:])
    }

    /// What the redacted form writes before its `@`: the user, percent-encoded, and never a password.
    static func userSegment(_ url: PostgresURL) -> Substring {
        url.redacted.dropFirst("postgres://".count).prefix { $0 != "@" }
    }
}
