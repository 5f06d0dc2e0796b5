import ArgumentParser
import FlowLog
#if canImport(Glibc)
import Glibc
#endif

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The log folder.", discussion: "Default: $FLOWLOG_DB, or ./flowlog.lmdb.", valueName: "path"))
    var db: String?

    var logPath: String {
        if let db { return db }
        if let fromEnvironment = getenv("FLOWLOG_DB"), fromEnvironment.pointee != 0 { return String(cString: fromEnvironment) }
        return "./flowlog.lmdb"
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

/// The envelope options of every typed command (SPEC §2).
struct EnvelopeOptions: ParsableArguments {
    @Option(help: "The stream (one session's history).")
    var stream = "default"

    @Option(help: "An idempotency key: a command whose id was accepted before is not applied again.")
    var id: String?

    @Option(help: "Refuse the command unless the stream is at this version (0: must not exist yet).")
    var expectedVersion: Int?

    @Option(help: "A correlation id copied onto every event the command causes.")
    var correlationId: String?

    @Option(help: "text, or json for the same answer `send` gives.")
    var format: OutputFormat = .text
}
