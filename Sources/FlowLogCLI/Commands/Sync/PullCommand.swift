#if Network
import ArgumentParser
import FlowDomain
import FlowLog
import FlowLogSync
import Foundation

/// `flowlog pull --from URL --stream S`: one session from a server, to replay and bisect offline.
struct PullCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Bring a stream from a FlowLog server into a local log, exactly as recorded there.",
        discussion: """
        Reads the stream's events from the server (GET /events?stream=S; the token needs the read \
        scope) and appends them to the local log (created when missing) with their ids, versions, \
        times, actors and correlation ids, so that `state --at`, `replay`, `bisect` and `serve`'s \
        inspector work on it offline. Pulling again appends only what is new. A local stream that \
        holds another event at one of the server's versions is refused (exit 65), never merged.
        """)

    @Option(help: ArgumentHelp("The server's address, such as http://127.0.0.1:8080.", valueName: "url"))
    var from: String
    @Option(help: "The stream to pull (repeatable).")
    var stream: [String] = []
    @OptionGroup var tokenOptions: SyncTokenOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        guard !stream.isEmpty else { throw ValidationError("Give --stream S: the session to pull.") }
        for name in stream where !Identifier.isValid(name) {
            throw ValidationError("--stream takes a stream id (1 to 64 of A-Z a-z 0-9 . _ : -); got '\(TerminalText.escaped(name))'.")
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            let (server, transport) = try tokenOptions.server(from)
            defer { transport.shutDown() }
            let log = try Composition.openLog(logOptions, access: .readWriteCreating)
            let processor = Composition.processor(for: log)
            for name in stream {
                let pulled: Puller.Pulled
                do {
                    pulled = try Puller(server: server).pull(name, into: processor)
                } catch let failure as SyncFailure {
                    throw SyncExit.failure(failure)
                }
                if format.isJSON {
                    output.json { json in
                        json.beginObject()
                        json.key("stream"); json.string(pulled.stream)
                        json.key("appended"); json.int(pulled.appended)
                        json.key("version"); json.int(pulled.version)
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
