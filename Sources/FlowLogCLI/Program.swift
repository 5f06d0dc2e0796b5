import ArgumentParser
import FlowLogBasics
import FlowLogProjections
import FlowLogStore

/// What `flowlog` is, beyond the command line every domain's log shares: its name, its
/// subcommands in the order `--help` lists them, and the projectors whose files hold sessions'
/// data (the trackers, in `Shop/` with the shop's own subcommands).
///
/// This file, `StateText.swift` and `Shop/` are the only ones of the command line that name the
/// shop: a package that binds another domain (docs/architecture.md, "A domain") compiles the
/// other folders with a `Program.swift` and a `StateText.swift` of its own, as Examples/TaskList
/// does for `tasklog`. Both sit at the target's root, the program's entry, above every folder.
enum Program {
    static let name = "flowlog"
    static let abstract = "An event-sourced command log for a shopping cart and an onboarding flow, on LMDB."
    static let discussion = """
        Commands become events in an LMDB log (default ./flowlog.lmdb, or $FLOWLOG_DB, or --db PATH). \
        Results go to standard output; diagnostics go to standard error.

        Exit status: 0 success; 1 a command was rejected (or replay --verify found a disagreement); \
        3 bisect could not pin the first bad event (skipped versions); 64 usage error (a bad option or \
        value, a position outside the log, a path FlowLog will not write); 65 the log is damaged, of a \
        newer schema, or not a log, or an input file is not what it should be; 66 no log at the path, \
        no such stream, or no such input file; 70 an unexpected failure; 73 the log cannot be created \
        there; 74 an I/O error (a full disk, a collector that keeps refusing); 75 another process runs \
        that projector, or holds the log open that compact needs to itself; 77 permission denied; 124 a bisect check ran past --timeout.
        """

    /// Every subcommand but the typed commands' groups, in the order help lists them.
    static let subcommands: [any ParsableCommand.Type] =
        [
            SendCommand.self, StateCommand.self, LogCommand.self, ReplayCommand.self, BisectCommand.self, SnapshotsCommand.self,
            ExportCommand.self, ImportCommand.self, VerifyCommand.self, ProjectionsCommand.self, OrdersCommand.self, ViewCommand.self,
            StreamsCommand.self, BackupCommand.self, CopyCommand.self, DemoCommand.self, SchemaCommand.self, InitCommand.self,
            UpgradeCommand.self, ForgetCommand.self, RetainCommand.self, CompactCommand.self,
        ] + networkCommands

    /// The commands that need the network stack: only in a build with the `Network` trait, so the
    /// embedded LMDB-only binary has no `serve` at all rather than one that fails.
    #if Network
        static let networkCommands: [any ParsableCommand.Type] = [ServeCommand.self, PushCommand.self, PullCommand.self]
    #else
        static let networkCommands: [any ParsableCommand.Type] = []
    #endif

    /// What each typed commands' group is for (`flowlog cart --help`); a group without an entry is
    /// described by its kinds.
    static let groupAbstracts: [String: String] = [
        "cart": "Change the shopping cart.",
        "system": "Report what the system did: app launches and payment answers.",
        "welcome": "Taps on the welcome screen.",
        "onboarding": "Taps on the onboarding screens.",
        "login": "The log-in screen.",
        "home": "The home screen.",
        "modal": "The modal.",
    ]

    /// `flowlog schema`'s subcommands beyond the kinds' references: the trackers' mapping table.
    static let schemaSubcommands: [any ParsableCommand.Type] = [SchemaCommand.TrackerMappingReference.self]

    /// The projectors `serve` reports on: the storage read model and the trackers.
    static var projectorNames: [String] { Composition.projectorNames }

    /// The folder of the projectors' files (`--tracker-dir`'s default): `LOG-tracker` beside the log.
    static func projectorFolder(for log: LogOptions) -> String { TrackerOptions.defaultFolder(for: log) }

    /// Takes the leases of the projectors that write files (the trackers), held while `forget`,
    /// `retain` or `serve` take sessions' lines out of them: busy (exit 75) names a running one.
    static func leaseProjectorsWritingFiles(of log: any LogStore) throws -> [any ProjectorLease] {
        try Composition.leaseTrackers(of: log)
    }

    /// Takes `streams`' lines out of the projectors' files in `folder` (the trackers' messages and
    /// dead letters); returns the files rewritten, with the lines each lost.
    @discardableResult
    static func forgetInProjectorFiles(streams: Set<String>, folder: String) throws -> [(file: String, lines: Int)] {
        try TrackerFileErasure.forget(streams: streams, in: folder)
    }

    /// What `forget` and `retain` say in their help of the trackers' files and the vendors.
    enum Help {
        static let forgetInFiles = """
            , and the trackers' files \
            (messages and dead letters) lose its lines; tracker calls not yet delivered are never sent. \
            A tracker runner (`projections run`) must not be running: forget exits 75 naming it, \
            before changing anything.
            """
        static let forgetVendors = """
             The output names \
            the ids to pass to Segment's deletion and GA4's user deletion (the stream is their \
            anonymousId and client_id): events the trackers delivered before are theirs to delete.
            """
        static let forgetFolder: ArgumentHelp =
            "The folder of the trackers' files, whose lines of the stream are taken out too (default: LOG-tracker beside the log, as `projections run` writes them)."
        static let retainVendors = """
            : keep that list to ask Segment and \
            GA4 to delete what they received (the stream is their anonymousId and client_id)
            """
        static let retainRunners = "`\(Program.name) projections run --follow` and `\(Program.name) serve`"
        static let retainInFiles = ", and its lines leave the trackers' files"
        static let retainFolder: ArgumentHelp =
            "The folder of the trackers' files, whose lines of the forgotten sessions are taken out too (default: LOG-tracker beside the log)."
    }

    /// A command that starts a log, which a message suggests where there is none yet.
    static let firstCommand = "demo"

    /// What `forget` tells a person to do beyond the log: the vendors hold what the trackers sent.
    static func vendorsToAsk(forgetting stream: String) -> String? {
        "Ask the vendors to delete what they received: Segment anonymousId \(stream), GA4 client_id \(stream)."
    }
}

#if Network
    import FlowLogServer

    extension Program {
        /// What each tracker that posts to a vendor delivered, for `serve`'s `/metrics`.
        static func deliveries(in folder: String) -> [TrackerDeliveries] { Composition.trackerDeliveries(in: folder) }
    }
#endif
