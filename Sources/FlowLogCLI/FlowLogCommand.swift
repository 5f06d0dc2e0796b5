import ArgumentParser

/// `flowlog`: the root of the command line. The typed commands' groups come first, derived from
/// the command kinds' declarations; then one subcommand per feature, each in a file of its own.
struct FlowLogCommand: ParsableCommand {
    /// The root with every subcommand, or, once `offerOnly(_:)` chose one, with that one alone.
    static var configuration: CommandConfiguration { chosen ?? everything }

    /// Where the arguments name a subcommand, parsing needs only that one: ArgumentParser builds a
    /// tree of every subcommand the root offers, and every typed command's help text with it, on
    /// each start, which was most of the CPU of a short command like `state --at`. Help, completion
    /// scripts and anything that names no subcommand still get the whole tree.
    static func offerOnly(_ arguments: [String]) {
        guard let first = arguments.first, !first.hasPrefix("-") else { return }
        let named = fixedSubcommands.first { $0.configuration.commandName == first } ?? TypedCommandCatalog.groupCommand(named: first)
        guard let named, !arguments.contains("--generate-completion-script") else { return }
        var only = everything
        only.subcommands = [named]
        chosen = only
    }

    /// Set once, before parsing, on the only thread.
    nonisolated(unsafe) private static var chosen: CommandConfiguration?

    private static let fixedSubcommands: [any ParsableCommand.Type] =
        [
            SendCommand.self, StateCommand.self, LogCommand.self, ReplayCommand.self, BisectCommand.self, SnapshotsCommand.self,
            ExportCommand.self, ImportCommand.self, VerifyCommand.self, ProjectionsCommand.self, OrdersCommand.self, ViewCommand.self,
            StreamsCommand.self, BackupCommand.self, CopyCommand.self, DemoCommand.self, SchemaCommand.self, InitCommand.self,
            UpgradeCommand.self, ForgetCommand.self, RetainCommand.self, CompactCommand.self,
        ] + networkCommands

    private static let everything = CommandConfiguration(
        commandName: "flowlog",
        abstract: "An event-sourced command log for a shopping cart and an onboarding flow, on LMDB.",
        discussion: """
            Commands become events in an LMDB log (default ./flowlog.lmdb, or $FLOWLOG_DB, or --db PATH). \
            Results go to standard output; diagnostics go to standard error.

            Exit status: 0 success; 1 a command was rejected (or replay --verify found a disagreement); \
            3 bisect could not pin the first bad event (skipped versions); 64 usage error (a bad option or \
            value, a position outside the log, a path FlowLog will not write); 65 the log is damaged, of a \
            newer schema, or not a log, or an input file is not what it should be; 66 no log at the path, \
            no such stream, or no such input file; 70 an unexpected failure; 73 the log cannot be created \
            there; 74 an I/O error (a full disk, a collector that keeps refusing); 75 another process runs \
            that projector, or holds the log open that compact needs to itself; 77 permission denied; 124 a bisect check ran past --timeout.
            """,
        version: FlowLogVersion.description,
        subcommands: TypedCommandCatalog.groupCommands + fixedSubcommands
    )

    /// The commands that need the network stack: only in a build with the `Network` trait, so the
    /// embedded LMDB-only binary has no `serve` at all rather than one that fails.
    #if Network
        static let networkCommands: [any ParsableCommand.Type] = [ServeCommand.self, PushCommand.self, PullCommand.self]
    #else
        static let networkCommands: [any ParsableCommand.Type] = []
    #endif
}
