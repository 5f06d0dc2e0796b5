import ArgumentParser
import FlowLogStore

/// What `tasklog` is: FlowLog's command line for a to-do list. Every subcommand here is FlowLog's
/// own, compiled for the list (this file and `StateText.swift` take the place of FlowLog's
/// `Sources/FlowLogCLI/Program.swift` and `StateText.swift`, and there is no `Shop/`); its typed
/// commands come from the list's declarations, as the shop's do; it has no projectors of its own
/// and no files beside the log that hold a session's data.
enum Program {
    static let name = "tasklog"
    static let abstract = "An event-sourced log of to-do lists, on LMDB or PostgreSQL."
    static let discussion = """
        Commands (task.add, task.rename, task.complete, task.reopen) become events in an LMDB log \
        (default ./flowlog.lmdb, or $FLOWLOG_DB, or --db PATH; a postgres:// URL for PostgreSQL). \
        Results go to standard output; diagnostics go to standard error.

        Exit status: 0 success; 1 a command was rejected (or replay --verify found a disagreement); \
        3 bisect could not pin the first bad event; 64 usage error; 65 the log is damaged, of a newer \
        schema, or not a log, or an input file is not what it should be; 66 no log at the path, no such \
        stream, or no such input file; 70 an unexpected failure; 73 the log cannot be created there; \
        74 an I/O error; 75 another process holds what the command needs; 77 permission denied; \
        124 a bisect check ran past --timeout.
        """

    static let subcommands: [any ParsableCommand.Type] =
        [
            SendCommand.self, StateCommand.self, LogCommand.self, ReplayCommand.self, BisectCommand.self, SnapshotsCommand.self,
            ExportCommand.self, ImportCommand.self, VerifyCommand.self, StreamsCommand.self, BackupCommand.self, CopyCommand.self,
            SchemaCommand.self, UpgradeCommand.self, ForgetCommand.self, RetainCommand.self, CompactCommand.self,
        ] + networkCommands

    #if Network
        static let networkCommands: [any ParsableCommand.Type] = [ServeCommand.self]
    #else
        static let networkCommands: [any ParsableCommand.Type] = []
    #endif

    /// `tasklog task add --task t1 --title …`: the typed commands, derived from the list's declarations.
    static let groupAbstracts = ["task": "Change the to-do list."]
    static let schemaSubcommands: [any ParsableCommand.Type] = []

    /// The storage read model is the only projector (the server reports its checkpoint).
    static let projectorNames = ["storage"]

    static func projectorFolder(for log: LogOptions) -> String { "" }

    /// No projector of the list writes files: nothing to lease or rewrite when a session is forgotten.
    static func leaseProjectorsWritingFiles(of log: any LogStore) throws -> [any ProjectorLease] { [] }

    @discardableResult
    static func forgetInProjectorFiles(streams: Set<String>, folder: String) throws -> [(file: String, lines: Int)] { [] }

    /// What `forget` and `retain` say in their help beyond the log: nothing, and no folder option.
    enum Help {
        static let forgetInFiles = "."
        static let forgetVendors = ""
        static let forgetFolder: ArgumentHelp = .hidden
        static let retainVendors = ""
        static let retainRunners = "`tasklog serve`"
        static let retainInFiles = ""
        static let retainFolder: ArgumentHelp = .hidden
    }

    /// A command that starts a log, which a message suggests where there is none yet.
    static let firstCommand = "task add --task t1 --title 'Buy milk'"

    /// Nothing of a list leaves the log: no vendor to ask.
    static func vendorsToAsk(forgetting stream: String) -> String? { nil }
}

#if Network
    import FlowLogServer

    extension Program {
        static func deliveries(in folder: String) -> [TrackerDeliveries] { [] }
    }
#endif
