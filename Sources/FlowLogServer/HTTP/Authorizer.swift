#if Network
    import FlowLogBasics
    import Foundation
    import Hummingbird

    /// The bearer tokens of `--token-file` and their scopes.
    ///
    /// The file holds one token a line, `TOKEN SCOPES` (`TokenFileText` reads it). A file that others
    /// than its owner may read or write is refused, as ssh refuses such a key.
    public struct TokenFile: Sendable {
        struct Entry: Sendable {
            let token: [UInt8]
            let scopes: Set<Scope>
        }

        let entries: [Entry]

        public struct Problem: Error, CustomStringConvertible {
            public let description: String
        }

        public init(path: String) throws(Problem) {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw Problem(description: "Cannot read the token file \(path): \(String(cString: strerror(errno))).")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw Problem(description: "The token file \(path) is not a regular file.") }
            guard info.st_mode & 0o077 == 0 else {
                throw Problem(
                    description:
                        "The token file \(path) may be read or written by others (mode \(String(info.st_mode & 0o777, radix: 8))); make it private with `chmod 600 \(path)`."
                )
            }
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw Problem(description: "Cannot read the token file \(path) as UTF-8 text.")
            }
            try self.init(text: text, path: path)
        }

        /// Reads the file's text (`TokenFileText`, which the embedded build tests and fuzzes too).
        init(text: String, path: String) throws(Problem) {
            do throws(TokenFileText.Problem) {
                entries = try TokenFileText.parse(text, path: path).map { entry in
                    Entry(token: entry.token, scopes: Set(entry.scopes.compactMap(Scope.init(rawValue:))))
                }
            } catch {
                throw Problem(description: error.description)
            }
        }

        /// The scopes of `presented`, comparing it with every token in constant time (per length).
        func scopes(of presented: [UInt8]) -> Set<Scope>? {
            var found: Set<Scope>?
            for entry in entries where Self.constantTimeEqual(entry.token, presented) { found = entry.scopes }
            return found
        }

        static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            var difference = UInt64(a.count ^ b.count)
            let length = max(a.count, b.count)
            for index in 0..<length {
                let x = index < a.count ? a[index] : 0
                let y = index < b.count ? b[index] : 0
                difference |= UInt64(x ^ y)
            }
            return difference == 0
        }
    }

    /// Checks a request's bearer token against the route's scope: 401 without a known token (no
    /// detail), 403 without the scope (naming the scope the route needs, which the document says
    /// anyway, and nothing about the token); without a token file, everything is allowed (loopback only).
    struct Authorizer: Sendable {
        let tokens: TokenFile?

        func authorize(_ request: Request, scope: Scope, queryToken: Bool) throws {
            guard let tokens else { return }
            var presented: Substring?
            if let header = request.headers[.authorization] {
                let parts = header.split(separator: " ", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "bearer" { presented = parts[1] }
            } else if queryToken {
                presented = request.uri.queryParameters["access_token"]
            }
            guard let presented, let scopes = tokens.scopes(of: Array(presented.utf8)) else {
                throw APIError(
                    status: .unauthorized, code: "unauthorized", message: "Authentication required.",
                    headers: [.wwwAuthenticate: "Bearer realm=\"flowlog\""])
            }
            guard scopes.contains(scope) else {
                throw APIError(
                    status: .forbidden, code: "forbidden",
                    message: "This token lacks the \(scope.rawValue) scope, which this route needs; use a token that has it.",
                    headers: [.wwwAuthenticate: "Bearer realm=\"flowlog\", error=\"insufficient_scope\", scope=\"\(scope.rawValue)\""])
            }
        }
    }
#endif
