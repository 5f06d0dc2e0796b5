import Foundation

/// The text of `serve --token-file`: one token a line, `TOKEN SCOPES`, the scopes comma-separated
/// (`read`, `write`, `admin`, or several such as `read,write`); blank lines and lines starting with
/// `#` are ignored. A token is at least 16 characters of visible ASCII.
///
/// Here rather than beside the server, which checks the file's owner and mode and then hands its
/// text to `parse`: the parsing needs no network, so the embedded build tests it and fuzzes it.
package enum TokenFileText {
    package struct Entry: Equatable, Sendable {
        package let token: [UInt8]
        /// The scopes' names, each one of `scopeNames`; never empty.
        package let scopes: Set<String>
    }

    package struct Problem: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    package static let scopeNames: Set<String> = ["read", "write", "admin", "ingest"]

    /// The tokens of `text`; `path` only names the file in problems.
    package static func parse(_ text: String, path: String) throws(Problem) -> [Entry] {
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2 else {
                throw Problem(
                    description:
                        "Line \(index + 1) of the token file \(path) is not `TOKEN SCOPES` (scopes: read, write, admin, ingest, comma-separated).")
            }
            let token = Array(parts[0].utf8)
            guard token.count >= 16, token.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw Problem(
                    description:
                        "The token on line \(index + 1) of \(path) is shorter than 16 characters or not visible ASCII; use a long random token (such as `openssl rand -hex 32`)."
                )
            }
            var scopes: Set<String> = []
            for name in parts[1].split(separator: ",") {
                guard scopeNames.contains(String(name)) else {
                    throw Problem(
                        description:
                            "Line \(index + 1) of the token file \(path) names the scope \"\(name)\"; the scopes are read, write, admin and ingest.")
                }
                scopes.insert(String(name))
            }
            // Commas alone (`TOKEN ,`) would give a token that opens no route: a typo, refused.
            guard !scopes.isEmpty else {
                throw Problem(
                    description: "Line \(index + 1) of the token file \(path) names no scope; the scopes are read, write, admin and ingest.")
            }
            entries.append(Entry(token: token, scopes: scopes))
        }
        guard !entries.isEmpty else { throw Problem(description: "The token file \(path) holds no token.") }
        return entries
    }
}
