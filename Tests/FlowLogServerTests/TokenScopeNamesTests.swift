// Needs the `Network` trait: the server is built only with it.
#if Network
    import FlowLogBasics
    @testable import FlowLogServer
    import Testing

    /// The token file's text is read without the server (`TokenFileText`); the scope names it accepts
    /// must be the server's scopes, or a token's scope would be read and then dropped.
    @Suite("Token file scopes")
    struct TokenScopeNamesTests {
        @Test func theTokenFileAcceptsExactlyTheServersScopes() throws {
            #expect(Set(Scope.allCases.map(\.rawValue)) == TokenFileText.scopeNames)
            let file = try TokenFile(text: "# tokens\n0123456789abcdef read,admin\n", path: "tokens")
            #expect(file.scopes(of: Array("0123456789abcdef".utf8)) == [.read, .admin])
        }
    }
#endif
