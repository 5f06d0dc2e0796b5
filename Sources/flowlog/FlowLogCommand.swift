import ArgumentParser
import FlowLog

/// The composition root: parses the command line, builds the concrete log, clock and id generator,
/// and hands them to the application layer. Nothing below this target knows about the CLI.
@main
struct FlowLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowlog",
        abstract: "An event-sourced command log for a shopping cart and an onboarding flow, on LMDB.",
        discussion: """
        Commands become events in an LMDB log (default ./flowlog.lmdb, or $FLOWLOG_DB, or --db PATH). \
        Results go to standard output; diagnostics go to standard error.

        Exit status: 0 success; 1 a command was rejected; 3 bisect could not pin the first bad event \
        (skipped versions); 64 usage error; 65 the log is damaged, of a newer schema, or not a log; \
        66 no log at the path; 70 an unexpected failure; 73 the log cannot be created there; 74 an I/O \
        error (a full disk, a collector that keeps refusing); 75 another process runs that projector; \
        77 permission denied; 124 a bisect check ran past --timeout.
        """,
        subcommands: [
            CartCommand.self, SystemCommand.self, WelcomeCommand.self, OnboardingCommand.self,
            LoginCommand.self, HomeCommand.self, ModalCommand.self,
            SendCommand.self, StateCommand.self, LogCommand.self, ReplayCommand.self, BisectCommand.self, SnapshotsCommand.self,
            ExportCommand.self, ImportCommand.self, VerifyCommand.self, ProjectionsCommand.self, OrdersCommand.self, ViewCommand.self,
            DemoCommand.self,
        ]
    )

    /// `--db` may also stand before the subcommand (`flowlog --db x.lmdb state`); it is moved behind
    /// it, where every subcommand declares it.
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
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
        main(arguments + moved)
    }
}
