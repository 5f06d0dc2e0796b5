import Deciding

#if Network
    import ArgumentParser
    import FlowDomain
    import FlowLogBasics
    import FlowLogSync
    import FlowLogSystem
    import Foundation

    /// `flowlog push --to URL`: the local log's sessions to a server, every event exactly once.
    struct PushCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: "Send the local log's streams to a FlowLog server: what it lacks, in batches, exactly once.",
            discussion: """
                For each stream (every one, or each --stream), asks the server where it stands and sends the \
                events that follow, as recorded here (ids, versions, times kept), in batches; requests that get \
                no answer, 429 or a 5xx are tried again with backoff. A push stopped anywhere starts again by \
                asking, and a batch whose answer was lost is acknowledged as duplicates: every event arrives \
                once. The token comes from $FLOWLOG_TOKEN or --token-file and needs the ingest scope. Exit 0 \
                when every stream arrived; 1 when the server refused a stream (forgotten there, newer than \
                it knows, or holding other events at its versions), each named, the others delivered.
                """)

        @Option(help: ArgumentHelp("The server's address, such as http://127.0.0.1:8080.", valueName: "url"))
        var to: String
        @Option(help: "A stream to push (repeatable; default: every stream).")
        var stream: [String] = []
        @Option(name: .customLong("batch"), help: "Events per request.")
        var batch = 5_000
        @Flag(name: .customLong("forget-gone"), help: "Forget here the streams the server forgot (an erasure request there).")
        var forgetGone = false
        @OptionGroup var tokenOptions: SyncTokenOptions
        @OptionGroup var format: FormatOptions
        @OptionGroup var logOptions: LogOptions

        func validate() throws {
            guard (1...100_000).contains(batch) else { throw ValidationError("--batch takes 1 through 100000 events; got \(batch).") }
            for name in stream where !Identifier.isValid(name) || SystemStreams.isReserved(name) {
                throw ValidationError(
                    "--stream takes a session's stream id (1 to 64 of A-Z a-z 0-9 . _ : -, not flowlog:…); got '\(TerminalText.escaped(name))'.")
            }
        }

        func run() throws {
            try CommandExecution.run { output in
                let log = try Composition.openLog(logOptions, access: forgetGone ? .readWrite : .readOnly)
                let (server, transport) = try tokenOptions.server(to)
                defer { transport.shutDown() }
                var pusher = Pusher(server: server)
                pusher.batchEvents = batch
                let total = try stream.isEmpty ? log.lastPosition() : stream.reduce(0) { $0 + (try log.version(of: $1)) }
                let progress = Progress(label: "push", total: total, step: max(total / 200, 1_000))
                pusher.progress = { progress.advance(to: $0) }
                let report: PushReport
                do {
                    report = try pusher.push(log, streams: stream.isEmpty ? nil : stream)
                } catch let failure as SyncFailure {
                    progress.finish()
                    throw SyncExit.failure(failure)
                }
                progress.finish()
                var forgotten: [String] = []
                if forgetGone {
                    let gone = report.refused.filter { $0.reason == .gone }.map(\.stream)
                    if !gone.isEmpty {
                        _ = try Composition.processor(for: log).forget(streams: gone, reason: "forgotten on the server")
                        forgotten = gone
                    }
                }
                write(report, forgotten: forgotten, to: output, server: server.base)
                if !report.refused.isEmpty { throw CLIFailure(silently: .rejected) }
            }
        }

        private func write(_ report: PushReport, forgotten: [String], to output: OutputWriter, server: URL) {
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("appended")
                    json.int(report.appended)
                    json.key("duplicates")
                    json.int(report.duplicates)
                    json.key("delivered")
                    json.int(report.delivered)
                    json.key("upToDate")
                    json.int(report.upToDate)
                    json.key("refused")
                    json.beginArray()
                    for refused in report.refused {
                        json.beginObject()
                        json.key("stream")
                        json.string(refused.stream)
                        json.key("reason")
                        json.string(refused.reason.rawValue)
                        json.key("message")
                        json.string(refused.message)
                        json.key("forgottenHere")
                        json.bool(forgotten.contains(refused.stream))
                        json.endObject()
                    }
                    json.endArray()
                    json.endObject()
                }
                return
            }
            output.line(
                "pushed to \(TerminalText.escaped(server.absoluteString)): \(report.appended) events appended, \(report.duplicates) already there; \(report.delivered) streams delivered, \(report.upToDate) up to date, \(report.refused.count) refused."
            )
            for refused in report.refused {
                var line = "refused \(refused.stream) (\(refused.reason.rawValue)): \(TerminalText.escaped(refused.message))"
                if forgotten.contains(refused.stream) {
                    line += "; forgotten here too"
                } else if refused.reason == .gone {
                    line += "; `--forget-gone` forgets it here too"
                } else if refused.reason == .newerThanServer {
                    line += "; kept here, push again once the server runs a newer FlowLog"
                }
                output.line(line)
            }
        }
    }
#endif
