#if Network
    import ArgumentParser
    import FlowLogBasics
    import FlowLogHTTPClient
    import FlowLogProjections
    import FlowLogSync
    import Foundation

    /// What `push` and `pull` share: the token (from `FLOWLOG_TOKEN` or `--token-file`, never an
    /// argument, which other users see in the process list) and the server's client.
    struct SyncTokenOptions: ParsableArguments {
        @Option(
            name: .customLong("token-file"),
            help: ArgumentHelp("A file whose first line is the bearer token (default: $FLOWLOG_TOKEN).", valueName: "path"))
        var tokenFile: String?
        @Option(
            name: .customLong("retry-for"),
            help: ArgumentHelp(
                "Seconds to keep trying while the server gives no answer, 429 or a 5xx (backoff with jitter, up to 10 s apart).", valueName: "seconds"
            ))
        var retryFor: Double = 120

        func validate() throws {
            guard (0...86_400).contains(retryFor) else { throw ValidationError("--retry-for takes seconds from 0 through 86400; got \(retryFor).") }
        }

        /// The token, if one was given; a file that cannot be read, or holds no token, is a usage error.
        func token(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
            guard let tokenFile else {
                return environment["FLOWLOG_TOKEN"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            guard let data = FileManager.default.contents(atPath: tokenFile), let text = String(data: data, encoding: .utf8) else {
                throw CLIFailure(
                    "Cannot read the token file \(TerminalText.escaped(tokenFile)); give a readable file whose first line is the token.", .noInput)
            }
            let token = text.split(separator: "\n", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !token.isEmpty, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw CLIFailure(
                    "The token file \(TerminalText.escaped(tokenFile)) holds no token on its first line (visible ASCII, no spaces).", .usage)
            }
            return token
        }

        /// The server at `address` over AsyncHTTPClient: the static binary carries no libcurl, which
        /// Foundation's URLSession needs on Linux.
        func server(_ address: String) throws -> (server: SyncServer, transport: AsyncHTTPTransport) {
            let transport = AsyncHTTPTransport()
            do {
                let retry = RetryPolicy(deadline: retryFor, firstDelay: 0.2, maximumDelay: 10, timeout: 60)
                return (try SyncServer(base: address, token: try token(), transport: transport, retry: retry), transport)
            } catch let failure as SyncFailure {
                transport.shutDown()
                throw SyncExit.failure(failure)
            }
        }
    }

    /// The exit status of each way a sync stops as a whole.
    enum SyncExit {
        static func failure(_ failure: SyncFailure) -> CLIFailure {
            let status: ExitStatus =
                switch failure {
                case .usage: .usage
                case .unreachable: .ioError
                case .denied: .permission
                case .notFlowLog, .disagreement: .dataError
                }
            return CLIFailure(TerminalText.escaped(failure.description) + ".", status)
        }
    }
#endif
