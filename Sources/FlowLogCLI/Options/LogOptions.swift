import ArgumentParser
import FlowLogSystem

/// `--db`: the log every subcommand works on.
struct LogOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The log: a folder (LMDB), or postgres://USER@HOST:PORT/DBNAME[?schema=NAME] (PostgreSQL).",
            discussion: "Default: $FLOWLOG_DB, or ./flowlog.lmdb.", valueName: "path"))
    var db: String?

    /// As ArgumentParser writes it in a usage line (see `EnvelopeOptions.usage`).
    static let usage = "[--db <path>]"

    var logPath: String {
        if let db { return db }
        if let fromEnvironment = getenv("FLOWLOG_DB"), fromEnvironment.pointee != 0 { return String(cString: fromEnvironment) }
        return "./flowlog.lmdb"
    }

    /// `--db` may also stand before the subcommand (`flowlog --db x.lmdb state`); it is moved behind
    /// it, where every subcommand declares it.
    static func movingDatabaseBehindSubcommand(_ arguments: [String]) -> [String] {
        var arguments = arguments
        var moved: [String] = []
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-") {
            if arguments[index] == "--db", index + 1 < arguments.count {
                moved += arguments[index...index + 1]
                arguments.removeSubrange(index...index + 1)
            } else if arguments[index].hasPrefix("--db=") {
                moved.append(arguments.remove(at: index))
            } else {
                index += 1
            }
        }
        return arguments + moved
    }
}
