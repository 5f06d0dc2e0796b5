#if Network
    import ArgumentParser
    import FlowLogBasics
    import FlowLogServer
    import FlowLogSystem
    import Foundation
    import Synchronization

    /// `flowlog serve`: the HTTP API (docs/openapi.json), live subscriptions and the inspector.
    /// All of the server's wiring in the command line is in this file.
    struct ServeCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the log over HTTP: the API of docs/openapi.json, live event streams, and the inspector at /.",
            discussion: """
                Listens on loopback (127.0.0.1:8080) unless told otherwise; any other address needs \
                --token-file, a file of `TOKEN SCOPES` lines (scopes read, write, admin and ingest, comma-separated) that \
                only its owner may read. With --key-file (the key `\(Program.name) forget --key-file` takes) it records a \
                forgotten stream's keyed pseudonym and takes devices' recorded events (`\(Program.name) push`), refusing \
                those of a stream forgotten here. Port 0 takes any free port. Once listening it prints its address on standard \
                output; access logs go to standard error as JSON lines. SIGINT or SIGTERM stop it gracefully: \
                commands in flight are committed and answered first.
                """)

        @Option(help: ArgumentHelp("The address to listen on, HOST:PORT ([::1]:PORT for IPv6).", valueName: "host:port"))
        var listen = "127.0.0.1:8080"

        @Option(
            name: .customLong("token-file"),
            help: ArgumentHelp("Bearer tokens and their scopes, one `TOKEN SCOPES` a line; needed off loopback.", valueName: "path"))
        var tokenFile: String?

        @Option(
            name: .customLong("key-file"),
            help: ArgumentHelp(
                "A file holding the pseudonyms' secret key (16 bytes or more): forgets record the stream's pseudonym under it, and devices may push their sessions (POST /streams/{stream}/events).",
                valueName: "path"))
        var keyFile: String?

        @Option(
            name: .customLong("cors-origin"),
            help: ArgumentHelp("An origin whose pages may call the API (repeatable); none by default.", valueName: "origin"))
        var corsOrigins: [String] = []

        @Option(name: .customLong("max-subscribers"), parsing: .unconditional, help: "The most event-stream subscribers at once.")
        var maxSubscribers = 256

        // Tuning the tests use; the defaults are the documented ones.
        @Option(name: .customLong("request-timeout"), help: .hidden) var requestTimeout: Double = 30
        @Option(name: .customLong("heartbeat"), help: .hidden) var heartbeat: Double = 15
        @Option(name: .customLong("subscriber-buffer"), help: .hidden) var subscriberBuffer: Int = 8 << 20

        @OptionGroup var logOptions: LogOptions

        /// The seconds `--request-timeout` and `--heartbeat` take: from a millisecond (what the
        /// timers count in) to a day. Past that the nanoseconds of the timers (and a session's four
        /// times as long) would no longer fit 64 bits.
        static let secondsRange = 0.001...86_400.0

        func validate() throws {
            for (name, value) in [("--request-timeout", requestTimeout), ("--heartbeat", heartbeat)] where !Self.secondsRange.contains(value) {
                throw ValidationError("\(name) takes seconds from 0.001 through 86400 (a day); got \(value). Give, say, 30.")
            }
            guard subscriberBuffer > 0 else {
                throw ValidationError("--subscriber-buffer must be a number of bytes above 0; got \(subscriberBuffer).")
            }
            guard maxSubscribers >= 1 else { throw ValidationError("--max-subscribers must be 1 or more; got \(maxSubscribers).") }
            guard ListenAddress(listen) != nil else {
                throw ValidationError(
                    "--listen takes HOST:PORT (such as 127.0.0.1:8080, or [::1]:8080), with a port from 0 through 65535; got '\(TerminalText.escaped(listen))'."
                )
            }
            for origin in corsOrigins where origin != "*" && !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
                throw ValidationError("--cors-origin takes an origin such as https://example.com (or *); got '\(TerminalText.escaped(origin))'.")
            }
        }

        /// HOST:PORT, or [IPv6]:PORT.
        static func isLoopback(_ host: String) -> Bool {
            if host == "localhost" || host == "::1" { return true }
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        }

        func run() throws {
            try CommandExecution.run { output in
                let address = ListenAddress(listen)!
                let (host, port) = (address.host, address.port)
                guard tokenFile != nil || Self.isLoopback(host) else {
                    throw CLIFailure(
                        "\(Program.name) serve listens off loopback (\(host)) only with --token-file: anyone who can reach the address could read and write the log. Give a token file, or listen on 127.0.0.1.",
                        .usage)
                }
                let tokens: TokenFile?
                do {
                    tokens = try tokenFile.map { try TokenFile(path: $0) }
                } catch {
                    throw CLIFailure("\(error)", .usage)
                }
                let key = try keyFile.map { try ForgetCommand.key(from: $0) }
                let log = try Composition.openServedLog(logOptions)
                // Called once, from the server's thread, while this one waits below: the writer is not shared.
                nonisolated(unsafe) let announcer = output
                var options = FlowLogHTTPServer.Options(host: host, port: port, tokens: tokens, corsOrigins: corsOrigins, limits: limits) { address in
                    announcer.line("\(Program.name) serve: listening on \(address) (the inspector: \(address)/inspector/)")
                    announcer.flush()
                }
                options.erasureKey = key
                options.projectors = Program.projectorNames
                // A forget (DELETE, the daily retention) takes the sessions' lines out of the trackers'
                // files beside the log, as `flowlog forget` does, under the trackers' leases.
                let trackerFolder = Program.projectorFolder(for: logOptions)
                // What the trackers delivered, as their runners record it beside their dead letters.
                options.deliveries = { Program.deliveries(in: trackerFolder) }
                options.spansDropped = { Observability.droppedSpans }
                // The hook runs on the server's thread that forgets, which the log object serves as it serves the server.
                nonisolated(unsafe) let leasing = log
                options.beforeForgetting = { streams in
                    let leases = try Program.leaseProjectorsWritingFiles(of: leasing)
                    defer { withExtendedLifetime(leases) {} }
                    try Program.forgetInProjectorFiles(streams: Set(streams), folder: trackerFolder)
                }
                let outcome = ServeOutcome()
                let done = DispatchSemaphore(value: 0)
                // The server takes the log over; this thread only waits for it below.
                nonisolated(unsafe) let server = log
                Task.detached {
                    do {
                        try await FlowLogHTTPServer.run(log: server, options: options)
                    } catch {
                        outcome.failure.withLock { $0 = error }
                    }
                    done.signal()
                }
                done.wait()
                if let failure = outcome.failure.withLock({ $0 }) {
                    throw CLIFailure("\(Program.name) serve cannot go on at \(listen): \(failure).", .ioError)
                }
            }
        }

        var limits: ServerLimits {
            var limits = ServerLimits()
            limits.subscribers = maxSubscribers
            limits.requestTimeout = .milliseconds(Int64(requestTimeout * 1000))
            limits.heartbeat = .milliseconds(Int64(heartbeat * 1000))
            limits.subscriberBufferBytes = subscriberBuffer
            return limits
        }
    }

    /// Why the server stopped, set by its task before it signals the waiting thread.
    private final class ServeOutcome: Sendable {
        let failure = Mutex<(any Error)?>(nil)
    }
#endif
