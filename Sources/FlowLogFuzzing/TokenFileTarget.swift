import FlowLogBasics

/// The token file of `serve --token-file` (`TokenFileText`): the input is the file's text. It is
/// read or refused with a problem, never trapped on; every token read is at least 16 characters of
/// visible ASCII with at least one known scope; and the tokens written back one a line read the same.
enum TokenFileTarget {
    static let target = FuzzTarget(
        name: "token-file",
        checks:
            "a token file's text: read or refused with a problem, never a trap; every token is 16+ visible ASCII with known scopes; written back, it reads the same",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        let entries: [TokenFileText.Entry]
        do throws(TokenFileText.Problem) {
            entries = try TokenFileText.parse(text, path: "tokens")
        } catch {
            _ = error.description
            return
        }
        for entry in entries {
            fuzzCheck(entry.token.count >= 16 && entry.token.allSatisfy { (0x21...0x7E).contains($0) }, "a token of \(entry.token) was read")
            fuzzCheck(!entry.scopes.isEmpty && entry.scopes.isSubset(of: TokenFileText.scopeNames), "the scopes \(entry.scopes) were read")
        }
        let written = entries.map { String(decoding: $0.token, as: UTF8.self) + " " + $0.scopes.sorted().joined(separator: ",") }.joined(
            separator: "\n")
        fuzzCheck((try? TokenFileText.parse(written, path: "tokens")) == entries, "the tokens of \(text) written back as \(written) read otherwise")
    }
}
