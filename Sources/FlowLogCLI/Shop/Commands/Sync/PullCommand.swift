import Deciding

#if Network
    import ArgumentParser
    import FlowDomain
    import FlowLogSync
    import Foundation

    /// `flowlog pull --from URL --stream S`: one session from a server, to replay and bisect offline.
    struct PullCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract: "Bring a stream from a FlowLog server into a local log, exactly as recorded there.",
            discussion: """
                Reads the stream's events from the server (GET /events?stream=S; the token needs the read \
                scope; with --correlation-id, first GET /events?correlationId=C for the conversation's streams) \
                and appends them to the local log (created when missing) with their ids, versions, \
                times, actors and correlation ids, so that `state --at`, `replay`, `bisect` and `serve`'s \
                inspector work on it offline. Pulling again appends only what is new. A local stream that \
                holds another event at one of the server's versions is refused (exit 65), never merged.
                """)

        @Option(help: ArgumentHelp("The server's address, such as http://127.0.0.1:8080.", valueName: "url"))
        var from: String
        @Option(help: "The stream to pull (repeatable).")
        var stream: [String] = []
        @Option(
            name: .customLong("correlation-id"),
            help: ArgumentHelp(
                "Pull every stream with an event that carries this correlation id (one conversation across sessions), each whole.", valueName: "id"))
        var correlationId: String?
        @OptionGroup var tokenOptions: SyncTokenOptions
        @OptionGroup var format: FormatOptions
        @OptionGroup var logOptions: LogOptions

        func validate() throws {
            guard !stream.isEmpty || correlationId != nil else {
                throw ValidationError("Give --stream S (the session to pull) or --correlation-id C (every session of a conversation).")
            }
            for name in stream + (correlationId.map { [$0] } ?? []) where !Identifier.isValid(name) {
                throw ValidationError("--stream takes a stream id (1 to 64 of A-Z a-z 0-9 . _ : -); got '\(TerminalText.escaped(name))'.")
            }
        }

        func run() throws {
            try CommandExecution.run { output in
                let (server, transport) = try tokenOptions.server(from)
                defer { transport.shutDown() }
                let log = try Composition.openLog(logOptions, access: .readWriteCreating)
                let processor = Composition.processor(for: log)
                var streams = stream
                if let correlationId {
                    let found: [String]
                    do {
                        found = try Puller(server: server).streams(carrying: correlationId)
                    } catch let failure as SyncFailure {
                        throw SyncExit.failure(failure)
                    }
                    guard !found.isEmpty else {
                        throw CLIFailure(
                            "No event on \(TerminalText.escaped(from)) carries correlation id \(correlationId); check the id. Nothing was pulled.",
                            .noInput)
                    }
                    streams += found.filter { !streams.contains($0) }
                }
                for name in streams {
                    let pulled: Puller.Pulled
                    do {
                        pulled = try Puller(server: server).pull(name, into: processor)
                    } catch let failure as SyncFailure {
                        throw SyncExit.failure(failure)
                    }
                    if format.isJSON {
                        output.json { json in
                            json.beginObject()
                            json.key("stream")
                            json.string(pulled.stream)
                            json.key("appended")
                            json.int(pulled.appended)
                            json.key("version")
                            json.int(pulled.version)
                            json.endObject()
                        }
                    } else {
                        output.line("pulled \(pulled.stream) into \(log.location): \(pulled.appended) new events, now at version \(pulled.version).")
                    }
                }
            }
        }
    }
#endif
